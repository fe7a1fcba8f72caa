// Linked once per exported fhmoe target (CMakeLists.txt): a program that uses nothing, so
// that what is tested is the target's link interface from an installed package alone.
int main() { return 0; }
