// Package jsonscan is the reading machinery the format readers share: the
// two line splitters (a whole buffer, a stream), JSON escape decoding, the
// JSON string writer that escapes as each agent's library does, file
// helpers, timestamps and the tally of unknown record types.
package jsonscan
