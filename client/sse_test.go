package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// parseAll reads every event of r, and the error that ended the stream (nil for a
// clean end).
func parseAll(r io.Reader, max int) ([]sseEvent, error) {
	rd := newSSEReader(r, max)
	var out []sseEvent
	for {
		ev, err := rd.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func show(evs []sseEvent) string {
	var sb strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&sb, "%q=%q\n", e.name, e.data)
	}
	return sb.String()
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name, in string
		want     []sseEvent
	}{
		{"one event", "event: token\ndata: {\"text\":\"hi\"}\n\n", []sseEvent{{"token", []byte(`{"text":"hi"}`)}}},
		{"CRLF", "event: token\r\ndata: a\r\n\r\n", []sseEvent{{"token", []byte("a")}}},
		{"CR", "event: token\rdata: a\r\r", []sseEvent{{"token", []byte("a")}}},
		{"pings between events", ": ping\n\nevent: a\ndata: 1\n\n: ping\n\n:\n\nevent: b\ndata: 2\n\n", []sseEvent{{"a", []byte("1")}, {"b", []byte("2")}}},
		{"data on several lines", "event: a\ndata: {\"x\":\ndata:\ndata:  1}\n\n", []sseEvent{{"a", []byte("{\"x\":\n\n 1}")}}},
		{"no space after the colon", "event:a\ndata:1\n\n", []sseEvent{{"a", []byte("1")}}},
		{"no event name is message", "data: 1\n\n", []sseEvent{{"message", []byte("1")}}},
		{"an event without data is not dispatched, and its name does not carry over", "event: a\n\ndata: 1\n\n", []sseEvent{{"message", []byte("1")}}},
		{"id, retry and unknown fields are ignored", "id: 7\nretry: 10\nevent: a\nfoo: bar\ndata\n\n", []sseEvent{{"a", []byte("")}}},
		{"a BOM opens the stream", "\xef\xbb\xbfevent: a\ndata: 1\n\n", []sseEvent{{"a", []byte("1")}}},
		{"an event cut off by the end is dropped", "event: a\ndata: 1\n\nevent: b\ndata: 2\n", []sseEvent{{"a", []byte("1")}}},
		{"the last event name wins", "event: a\nevent: b\ndata: 1\n\n", []sseEvent{{"b", []byte("1")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAll(strings.NewReader(tt.in), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if show(got) != show(tt.want) {
				t.Fatalf("got\n%swant\n%s", show(got), show(tt.want))
			}
		})
	}
}

func TestSSEReaderBoundsLinesAndEvents(t *testing.T) {
	tests := []struct{ name, in string }{
		{"a line that never ends", "data: " + strings.Repeat("x", 200)},
		{"an event of many lines", strings.Repeat("data: xxxxxxxxxx\n", 20) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseAll(strings.NewReader(tt.in), 100); err == nil {
				t.Fatal("no error for data past the bound")
			}
		})
	}
}

// chunked returns data in reads whose sizes come from cuts (1 to 16 bytes each, in
// turn), so the same stream arrives split at every kind of place.
type chunked struct {
	data []byte
	cuts []byte
	i    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.cuts) > 0 {
		n = 1 + int(c.cuts[c.i%len(c.cuts)]%16)
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// wellFormed writes events as a server may: LF or CRLF line ends, with or without the
// space after the colon, data split into lines at its newlines, pings between events.
// style picks the variants. Names and data must hold no CR and names no LF.
func wellFormed(events []sseEvent, style byte) []byte {
	eol := "\n"
	if style&1 != 0 {
		eol = "\r\n"
	}
	var b bytes.Buffer
	for i, e := range events {
		if style&2 != 0 && i%2 == 0 {
			b.WriteString(": ping" + eol + eol)
		}
		b.WriteString("event: " + e.name + eol)
		for _, line := range strings.Split(string(e.data), "\n") {
			if style&4 != 0 && !strings.HasPrefix(line, " ") {
				b.WriteString("data:" + line + eol)
			} else {
				b.WriteString("data: " + line + eol)
			}
		}
		b.WriteString(eol)
	}
	return b.Bytes()
}

// FuzzSSE: any byte stream, cut into reads anywhere, never panics and parses to the
// same events as when read whole; and events written well-formed in any style come
// back exactly, however the stream is cut.
func FuzzSSE(f *testing.F) {
	f.Add([]byte("event: token\ndata: {\"text\":\"hi\"}\n\n"), []byte{0, 5, 15}, "token", "a\nb", byte(0))
	f.Add([]byte("event: a\r\ndata: 1\r\n\r\n: ping\r\rdata:2\r\r"), []byte{1}, "done", `{"x":1}`, byte(7))
	f.Add([]byte("\xef\xbb\xbfdata\n\n:\n\nevent:\ndata: \n\n\r\n\r"), []byte{}, "", "", byte(3))
	f.Add([]byte("event: x\ndata: "+strings.Repeat("y", 300)+"\n\n"), []byte{15, 15, 2}, "tool_call", " leading space\n\ntwo breaks", byte(6))
	f.Fuzz(func(t *testing.T, stream, cuts []byte, name, data string, style byte) {
		const max = 256 // small, so the bounds are reached too
		whole, werr := parseAll(bytes.NewReader(stream), max)
		parts, perr := parseAll(&chunked{data: stream, cuts: cuts}, max)
		if show(whole) != show(parts) || (werr == nil) != (perr == nil) {
			t.Fatalf("cut into reads, %q parsed to\n%s(err %v)\nread whole to\n%s(err %v)", stream, show(parts), perr, show(whole), werr)
		}

		// The fuzzer's name and data, made writable (no CR; no LF in the name; a
		// name is what follows "event: ", so a leading space would be a second one).
		name = strings.TrimLeft(strings.NewReplacer("\r", "", "\n", "").Replace(name), " ")
		if name == "" {
			name = "message"
		}
		data = strings.ReplaceAll(data, "\r", "")
		want := []sseEvent{{name, []byte(data)}, {"done", []byte(`{"response":"x"}`)}, {name, []byte(data + data)}}
		if len(wellFormed(want, style)) > max { // no line or event can exceed the bound
			want = want[1:2]
		}
		got, err := parseAll(&chunked{data: wellFormed(want, style), cuts: cuts}, max)
		if err != nil || show(got) != show(want) {
			t.Fatalf("well-formed stream %q (style %d) parsed to\n%s(err %v)\nwant\n%s", wellFormed(want, style), style, show(got), err, show(want))
		}
	})
}
