// Package patch is meith's pure, in-memory diff and patch engine for the git
// tools: bytes in, bytes out, no repository and no git executable.
//
// It has four parts:
//
//   - A line diff (Diff, DiffContext) that reimplements git's xdiff rather
//     than textbook Myers: Myers' O(ND) algorithm with the linear-space
//     middle-snake refinement and xdiff's cost heuristics (which bound the
//     time on big, very different inputs), xdiff's discarding of lines that
//     cannot match, and xdiff's change compaction with the indent heuristic
//     that "git diff" uses by default. So hunk boundaries and counts are
//     git's, including the rare non-minimal results of its heuristics. Lines
//     keep their terminators: CRLF against LF and a missing final newline
//     are differences exactly as git sees them. Memory is linear in the
//     number of lines; DiffContext and CountsContext can be cancelled.
//   - Counts, which equals "git diff --numstat", and Unified/Build, which
//     write the same one-file patch as "git diff" (headers, modes, renames,
//     quoted paths, hunks with function-name context, "\ No newline at end
//     of file", binary files).
//   - Parse, a unified-diff parser that follows "git apply"'s rules (quoted
//     names, mode lines, new, deleted and renamed files, zero-length ranges,
//     CRLF content), and Format to write patches back. SelectLines,
//     SelectLinesReverse and Select build the partial patches the git panel
//     uses to stage, unstage or discard single lines.
//   - Apply, which applies one file's hunks to blob content in memory the way
//     "git apply --cached" does (exact context, nearest-offset search, no
//     fuzz), forward or in reverse, and never returns a partial result.
//
// Where results can differ from git (each is documented on the function):
// Unified does not know .gitattributes diff drivers (function-name context,
// forced binary/text) and takes the abbreviation length as an option instead
// of lengthening ambiguous object names; Apply refuses one malformed case
// that git accepts while dropping a newline; Parse accepts a patch whose
// last line lacks its newline.
package patch
