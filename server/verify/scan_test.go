package verify

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestObjectScanner(t *testing.T) {
	cases := []struct {
		name string
		text string
		at   int
		want int
	}{
		{"flat", `x {"a": 1} y`, 2, 10},
		{"nested", `{"a": {"b": {}}}`, 0, 16},
		{"brace in string", `{"a": "}{"}`, 0, 11},
		{"escaped quote in string", `{"a": "\"}"}`, 0, 12},
		{"prose apostrophe outside", `it's {"a": 1}`, 5, 13},
		{"never closes", `{"a": {"b": 1}`, 0, -1},
		{"unterminated string", `{"a": "}`, 0, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := newObjectScanner(tc.text).end(tc.at); got != tc.want {
				t.Fatalf("end(%d) = %d, want %d", tc.at, got, tc.want)
			}
		})
	}
}

// FuzzObjectScanner checks that remembered answers equal fresh scans and that
// every span the scanner accepts as valid JSON is one whole object.
func FuzzObjectScanner(f *testing.F) {
	f.Add(`{"a": {"b": "}{"}, "c": [{"d": 1}]} {x {"e": "\"{"}`)
	f.Add(`{{{"}}}`)
	f.Fuzz(func(t *testing.T, text string) {
		shared := newObjectScanner(text)
		for i := 0; i < len(text); i++ {
			if text[i] != '{' {
				continue
			}
			got, want := shared.end(i), newObjectScanner(text).end(i)
			if got != want {
				t.Fatalf("end(%d): remembered %d, fresh scan %d", i, got, want)
			}
			if want > 0 && text[want-1] != '}' {
				t.Fatalf("end(%d) = %d does not follow a '}'", i, want)
			}
			if want < 0 {
				continue
			}
			var v map[string]any
			if json.Unmarshal([]byte(text[i:want]), &v) != nil {
				continue
			}
			// A valid object found by the scanner must be exactly what a decoder reads.
			dec := json.NewDecoder(strings.NewReader(text[i:]))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil || int(dec.InputOffset()) != want-i {
				t.Fatalf("scanner span %q differs from the decoder's (%v, %d)", text[i:want], err, dec.InputOffset())
			}
		}
	})
}
