#pragma once

// The run journal: an append-only file that rank 0 writes every result to before it acts on
// it, so that a run killed at any instant (kill -9, node loss, Slurm preemption) loses at most
// the records that were never flushed, and `--resume` re-measures only what is missing.
//
// Layout: a sequence of wire frames (wire/frame.hpp: magic, version, record type, length,
// CRC-32 of the payload), one per record, payloads encoded with the project's codecs. The
// first record is always the run header. Reading rules:
//  - a last record that is cut short (the writer died mid-write) or whose checksum fails and
//    that reaches the end of the file is a torn tail: ignored, reported as a warning, and cut
//    off when the journal is reopened for appending;
//  - any defect followed by more bytes is corruption in the middle: an error, never skipped.
//
// The records are journal_records.hpp, reading journal_reader.hpp, appending
// journal_writer.hpp, each implemented by the source file of its name.

#include "fhmoe/evidence/journal_reader.hpp"
#include "fhmoe/evidence/journal_records.hpp"
#include "fhmoe/evidence/journal_writer.hpp"
