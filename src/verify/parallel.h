#pragma once
// Verifying a big file on several cores. The file is cut into pieces that
// each end at a line end (so the cut never changes where lines begin or end);
// worker threads read a piece each, split it into lines and parse them (the
// integrity suffix, its CRC-32C and RAW values: most of the work), and count
// runs of RAW lines into per-series histograms (blocks). The calling thread
// feeds the lines and blocks to one LogChecker in file order; a block the
// checker cannot take at once is fed line by line.
// The report is the one the sequential reader gives; tests compare both.
#include <cstdint>

#include "util/posix_file.h"
#include "util/result.h"
#include "verify/verify.h"

namespace rb::verify {

// Worker threads `verify_file` uses for `options` (1: read sequentially).
unsigned parsing_threads(const Options& options);

// Feeds the first `size` bytes of `file` to `checker` with `threads` parsing
// threads (at least 1). On success `bytes` is the number of bytes read. A
// read error ends the feed: the lines before it are checked, the checker is
// told, and the error is returned.
Status feed_file_parallel(const InputFile& file, uint64_t size, const Options& options,
                          unsigned threads, LogChecker& checker, uint64_t& bytes);

// First line start at or after `from` (1 <= from): the offset q such that
// byte q-1 is LF, or a CR not followed by LF. Looks no further than `limit`
// and returns `limit` (or `size`, if smaller) when there is none before.
// Exposed for tests.
Result<uint64_t> next_line_start(const InputFile& file, uint64_t size, uint64_t from,
                                 uint64_t limit);

}  // namespace rb::verify
