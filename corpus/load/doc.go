// Package load turns command-line paths (files, folders, "-" for standard
// input) into sessions. It recognises each file by its content, trying the
// formats of one explicit ordered list (formats in sniff.go), and hands it
// to that format's reader package; a path that fails costs only itself.
package load
