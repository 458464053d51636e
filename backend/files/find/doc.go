// Package find lists and searches the files of a workspace, fast: the
// engine of workspace_list_files and workspace_search, of the editor's
// explorer, quick open and search panel, and of the folders the file
// watcher (backend/files/fswatch) watches.
//
// A walk never follows a symbolic link and never opens anything but
// folders and regular files (a named pipe or a device in a workspace is
// neither listed nor read, and a file replaced by one between the listing
// and the read is opened without blocking and refused). It leaves out
// [IgnoredFolders] and, inside a git repository, what the repository
// ignores: its .gitignore files at every level, .git/info/exclude and
// core.excludesFile, with git's own matcher (backend/git/status, checked
// against the git CLI), every ignore file read through backend/git/repo's
// bounded reader. Files git tracks are kept even where an ignore rule
// matches them, as `git ls-files -co --exclude-standard` keeps them; a
// repository met inside the walk (a submodule, a clone) brings its own
// rules. Folders are listed in parallel, level by level.
//
// A search reads each file once (at most [MaxFileBytes], binary files
// skipped), scans it for a literal every match must contain (the query
// itself, or the longest literal of a regular expression, found with
// regexp/syntax) and runs the regular expression only on the lines that
// hold it. Results come in path order and then line order whatever the
// parallelism; lines and columns are 1-based and count UTF-16 code units,
// as the editor and the patch tool do.
package find
