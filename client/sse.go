package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// An sseEvent is one dispatched server-sent event: its type ("message" when the
// stream named none) and its data lines joined with "\n".
type sseEvent struct {
	name string
	data []byte
}

// An sseReader reads server-sent events by the rules of the HTML standard's "event
// stream interpretation": lines end in CRLF, LF or CR; a line starting with ':' is a
// comment (the server's ": ping"); "field: value" loses one space after the colon;
// data lines are joined with "\n"; a blank line dispatches the event, unless it has
// no data; an event cut off by the end of the stream is dropped. It keeps only the
// event and data fields: id and retry serve reconnection, which a turn must never do,
// since sending the request again would start the turn again.
//
// It is written here rather than taken from a library because those are clients that
// own the HTTP request and reconnect by themselves; what is needed is forty lines over
// a bufio.Scanner.
type sseReader struct {
	sc       *bufio.Scanner
	maxEvent int
	started  bool
}

// errEventTooLarge means one event's data grew past the reader's bound.
var errEventTooLarge = errors.New("an event of the stream is larger than this client accepts")

// bom may open a stream; the standard says to drop it.
var bom = []byte("\xef\xbb\xbf")

// newSSEReader reads events from r; no line and no event's data may be longer than
// max bytes, so a server that never ends a line cannot exhaust memory.
func newSSEReader(r io.Reader, max int) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), max)
	sc.Split(scanSSELines)
	return &sseReader{sc: sc, maxEvent: max}
}

// next returns the next event, or io.EOF when the stream ends cleanly, or the
// error that broke it.
func (r *sseReader) next() (sseEvent, error) {
	var name string
	var data []byte
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, bom)
		}
		if len(line) == 0 {
			if len(data) == 0 {
				name = ""
				continue
			}
			if name == "" {
				name = "message"
			}
			return sseEvent{name: name, data: data[:len(data)-1]}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if len(data)+len(value)+1 > r.maxEvent {
				return sseEvent{}, fmt.Errorf("%w (%d bytes)", errEventTooLarge, r.maxEvent)
			}
			data = append(data, value...)
			data = append(data, '\n')
		}
	}
	if err := r.sc.Err(); err != nil {
		return sseEvent{}, err
	}
	return sseEvent{}, io.EOF
}

// scanSSELines is a bufio.SplitFunc for the three line ends of the format. A CR at
// the end of what has been read so far may be the first half of a CRLF, so it waits
// for the next byte; without that, how the stream was cut into reads would decide
// whether CRLF is one line end or two (and so whether an event is dispatched).
func scanSSELines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0 && atEOF && len(data) > 0:
		return len(data), data, nil
	case i < 0:
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data) && data[i+1] == '\n':
		return i + 2, data[:i], nil
	case i+1 < len(data) || atEOF:
		return i + 1, data[:i], nil
	}
	return 0, nil, nil
}
