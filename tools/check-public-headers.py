#!/usr/bin/env python3
"""Fails when a header under include/ is used by one area only (issue #13).

include/ is the library's API: a header there must be used by some area other than the one
that implements it (its tests do not count: they include private headers through src/). A
header that only its own area uses belongs next to its sources, where it is not installed.

An area is a library's folder: src/<area>, src/evidence/journal, src/cluster/run_state,
src/cluster/mpi_transport, kernels, src/app, tools, bench. A header's owner is the area that
holds the source file of the same name (for a header-only one, its folder under include/).
A header that a public header includes is used by everyone who uses that public header.

  tools/check-public-headers.py [--all]    (--all prints every header and its users)
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.MULTILINE)
SOURCE_SUFFIXES = ('.cpp', '.hpp', '.h', '.cu', '.cuh', '.hip')
NESTED_AREAS = ('src/evidence/journal', 'src/cluster/run_state', 'src/cluster/mpi_transport')


def area_of(path):
    """The area of a project file (a path relative to the root), None for tests."""
    for nested in NESTED_AREAS:
        if path.startswith(nested + '/'):
            return nested
    parts = path.split('/')
    if parts[0] == 'tests':
        return None
    if parts[0] == 'src':
        return 'src/' + parts[1] if len(parts) > 2 else 'src'
    return parts[0]


def project_files():
    for top in ('src', 'include', 'kernels', 'tools', 'tests', 'bench'):
        for directory, subdirs, names in os.walk(os.path.join(ROOT, top)):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith('build'))
            for name in sorted(names):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(directory, name), ROOT)


def main():
    files = list(project_files())
    public = sorted(os.path.relpath(f, 'include') for f in files if f.startswith('include/'))
    public_set = set(public)
    stems = collections.defaultdict(set)  # implementation files by name, for the owner
    for f in files:
        if not f.startswith(('include/', 'tests/')) and not f.endswith(('.hpp', '.h')):
            stems[os.path.splitext(os.path.basename(f))[0]].add(area_of(f))

    users = collections.defaultdict(set)
    public_includes = collections.defaultdict(set)
    for f in files:
        with open(os.path.join(ROOT, f), errors='replace') as handle:
            text = handle.read()
        for included in INCLUDE_RE.findall(text):
            if included not in public_set:
                continue
            if f.startswith('include/'):
                public_includes[os.path.relpath(f, 'include')].add(included)
            else:
                users[included].add(area_of(f))
    changed = True
    while changed:  # users of a public header use what it includes
        changed = False
        for header in public:
            for included in public_includes[header]:
                before = len(users[included])
                users[included] |= users[header]
                changed |= len(users[included]) != before

    lonely = []
    for header in public:
        stem = os.path.splitext(os.path.basename(header))[0]
        owners = stems.get(stem) or {'include/' + os.path.dirname(header)}
        outside = users[header] - owners - {None}
        if '--all' in sys.argv or not outside:
            shown = sorted(a if a else 'tests' for a in users[header])
            print(f"{header:46s} owner {','.join(sorted(owners)):26s} used by {','.join(shown)}")
        if not outside:
            lonely.append(header)
    if lonely:
        print(f'check-public-headers: {len(lonely)} of {len(public)} headers under include/ are '
              'used by their own area only: move them next to their sources', file=sys.stderr)
        return 1
    print(f'check-public-headers: each of the {len(public)} headers under include/ is used '
          'outside its own area')
    return 0


if __name__ == '__main__':
    sys.exit(main())
