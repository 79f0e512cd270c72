package httpline

import "bytes"

// An SSEField says what a line of a server-sent event stream carries.
type SSEField int

const (
	SSEOther SSEField = iota // a comment, id:, retry: or an unknown field
	SSEBlank                 // the end of an event
	SSEData                  // "data: ...", an event's payload
	SSEEvent                 // "event: ...", an event's type
	SSEError                 // "error: ...", as llama.cpp's server reports a failure
)

// SSELine splits a line of a server-sent event stream, as [LineReader]
// returns it, into its field and value, both trimmed of white space. The
// providers read each data line as a whole event, as the servers they
// speak to send them, so no data lines are joined.
func SSELine(line []byte) ([]byte, SSEField) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil, SSEBlank
	case line[0] == ':':
		return nil, SSEOther
	}
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return nil, SSEOther
	}
	value = bytes.TrimSpace(value)
	switch string(name) {
	case "data":
		return value, SSEData
	case "event":
		return value, SSEEvent
	case "error":
		return value, SSEError
	}
	return nil, SSEOther
}
