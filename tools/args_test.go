package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type sampleArgs struct {
	Query      string   `json:"query" arg:"required"`
	MaxResults int      `json:"max_results"`
	Note       string   `json:"note" arg:"required,empty"`
	Ratio      float64  `json:"ratio"`
	Strict     bool     `json:"strict"`
	Tags       []string `json:"tags"`
	Ignored    string   `json:"-"`
	hidden     string
}

func TestDecodeArgs(t *testing.T) {
	cases := []struct {
		name, raw string
		want      sampleArgs
		wantErr   string
	}{
		{"all fields", `{"query":"go","max_results":5,"note":"n","ratio":0.5,"strict":true,"tags":["a"]}`,
			sampleArgs{Query: "go", MaxResults: 5, Note: "n", Ratio: 0.5, Strict: true, Tags: []string{"a"}}, ""},
		{"only required", `{"query":"go","note":""}`, sampleArgs{Query: "go"}, ""},
		{"whitespace around", " \n{\"query\":\"go\",\"note\":\"\"}\t", sampleArgs{Query: "go"}, ""},
		{"quoted int", `{"query":"go","note":"","max_results":"7"}`, sampleArgs{Query: "go", MaxResults: 7}, ""},
		{"quoted float", `{"query":"go","note":"","ratio":" 1.5 "}`, sampleArgs{Query: "go", Ratio: 1.5}, ""},
		{"integral float for int", `{"query":"go","note":"","max_results":3.0}`, sampleArgs{Query: "go", MaxResults: 3}, ""},
		{"quoted bool", `{"query":"go","note":"","strict":"true"}`, sampleArgs{Query: "go", Strict: true}, ""},
		{"null optional", `{"query":"go","note":"","max_results":null}`, sampleArgs{Query: "go"}, ""},
		{"double-encoded object", `"{\"query\":\"go\",\"note\":\"x\"}"`, sampleArgs{Query: "go", Note: "x"}, ""},
		{"empty args", ``, sampleArgs{}, `argument "query" is required`},
		{"null args", `null`, sampleArgs{}, `argument "query" is required`},
		{"empty object", `{}`, sampleArgs{}, `argument "query" is required`},
		{"required null", `{"query":null,"note":""}`, sampleArgs{}, `argument "query" is required`},
		{"required blank", `{"query":"  ","note":""}`, sampleArgs{}, `argument "query" must not be empty`},
		{"required allowing empty missing", `{"query":"go"}`, sampleArgs{}, `argument "note" is required`},
		{"unknown field", `{"qury":"go","note":""}`, sampleArgs{}, `unknown argument "qury" (expected query, max_results, note, ratio, strict, tags)`},
		{"tag dash is not an argument", `{"query":"go","note":"","Ignored":"x"}`, sampleArgs{}, `unknown argument "Ignored"`},
		{"case matters", `{"Query":"go","note":""}`, sampleArgs{}, `unknown argument "Query"`},
		{"array", `["go"]`, sampleArgs{}, "arguments must be a JSON object, not an array"},
		{"number", `42`, sampleArgs{}, "arguments must be a JSON object, not a number"},
		{"plain string", `"go"`, sampleArgs{}, "arguments must be a JSON object, not a string"},
		{"broken JSON", `{"query":`, sampleArgs{}, "arguments must be a JSON object: unexpected end of JSON input; send them again as one complete JSON object"},
		{"trailing garbage", `{"query":"go"} x`, sampleArgs{}, "arguments must be a JSON object: invalid character 'x'"},
		{"string given a number", `{"query":5,"note":""}`, sampleArgs{}, `argument "query" must be a string, not a number`},
		{"string given an object", `{"query":{},"note":""}`, sampleArgs{}, `argument "query" must be a string, not an object`},
		{"int given a word", `{"query":"go","note":"","max_results":"five"}`, sampleArgs{}, `argument "max_results" must be a number, not a string`},
		{"int given a bool", `{"query":"go","note":"","max_results":true}`, sampleArgs{}, `argument "max_results" must be a number, not a boolean`},
		{"int given a fraction", `{"query":"go","note":"","max_results":2.5}`, sampleArgs{}, `argument "max_results" must be a whole number in range, not 2.5`},
		{"int given a huge number", `{"query":"go","note":"","max_results":1e300}`, sampleArgs{}, `argument "max_results" must be a whole number in range`},
		{"int given hex in a string", `{"query":"go","note":"","max_results":"0x10"}`, sampleArgs{}, `argument "max_results" must be a number`},
		{"float given Inf in a string", `{"query":"go","note":"","ratio":"Inf"}`, sampleArgs{}, `argument "ratio" must be a number`},
		{"bool given a number", `{"query":"go","note":"","strict":1}`, sampleArgs{}, `argument "strict" must be true or false, not a number`},
		{"slice given a string", `{"query":"go","note":"","tags":"a"}`, sampleArgs{}, `argument "tags" has the wrong type: string does not fit []string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got sampleArgs
			err := DecodeArgs(json.RawMessage(c.raw), &got)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				if strings.Contains(err.Error(), "json:") || strings.Contains(err.Error(), "Go value") {
					t.Errorf("error %q leaks encoding/json wording", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Query != c.want.Query || got.MaxResults != c.want.MaxResults || got.Note != c.want.Note ||
				got.Ratio != c.want.Ratio || got.Strict != c.want.Strict || strings.Join(got.Tags, ",") != strings.Join(c.want.Tags, ",") {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestDecodeArgsNeedsAStructPointer(t *testing.T) {
	var s sampleArgs
	var m map[string]any
	for name, dst := range map[string]any{"struct value": s, "map": &m, "nil": nil, "nil pointer": (*sampleArgs)(nil)} {
		if err := DecodeArgs(json.RawMessage(`{}`), dst); err == nil || !strings.Contains(err.Error(), "pointer to a struct") {
			t.Errorf("%s: error %v, want a programming error", name, err)
		}
	}
}

func TestDecodeArgsNoArguments(t *testing.T) {
	var none struct{}
	if err := DecodeArgs(json.RawMessage(`{}`), &none); err != nil {
		t.Fatal(err)
	}
	if err := DecodeArgs(json.RawMessage(`{"x":1}`), &none); err == nil || !strings.Contains(err.Error(), "(expected no arguments)") {
		t.Fatalf("error %v, want it to say no arguments are expected", err)
	}
}

// FuzzDecodeArgs checks that no input makes DecodeArgs panic, and that a
// successful decode always honours the required rule.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `{"query":"go","note":""}`, `{"query":"go","note":"","max_results":"5"}`,
		`"{\"query\":\"x\",\"note\":\"\"}"`, `[1]`, `{"query":`, `{"max_results":1e400}`, `{"strict":"tru"}`,
		`"\"{}\""`, `{"tags":[1,2]}`, `{"query":"\u0000","note":"\ud800"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var got sampleArgs
		err := DecodeArgs(json.RawMessage(raw), &got)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line", msg)
			}
			return
		}
		if strings.TrimSpace(got.Query) == "" {
			t.Fatalf("decoded %q without the required query: %+v", raw, got)
		}
	})
}

func TestCheckArgs(t *testing.T) {
	cases := []struct {
		name, raw string
		wantErr   string // empty: accepted
	}{
		{"object", `{"path":"a.txt"}`, ""},
		{"empty", ``, ""},
		{"null", `null`, ""},
		{"empty object", ` {} `, ""},
		{"same key in sibling objects", `{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}`, ""},
		{"key equal to a value", `{"path":"path","x":["path","path"]}`, ""},
		{"nested keys differing in case", `{"env":{"Path":"a","PATH":"b"}}`, ""},
		{"paired surrogate escape", `{"path":"\ud83d\ude00.txt"}`, ""},
		{"literal replacement character", "{\"path\":\"a\uFFFD\"}", ""},
		{"escaped replacement character", `{"path":"a\ufffd"}`, ""},
		{"escaped backslash before u", `{"path":"a\\ud800"}`, ""},
		{"huge number", `{"max_results":1e400}`, ""},
		{"double-encoded", `"{\"path\":\"a.txt\"}"`, ""},

		{"top-level duplicate", `{"path": "scratch.tmp", "path": "important.db"}`,
			`argument "path" is given twice; send each argument once`},
		{"duplicate spelled with an escape", `{"path":"a","pat\u0068":"b"}`,
			`argument "path" is given twice; send each argument once`},
		{"duplicate with equal values", `{"path":"a","path":"a"}`,
			`argument "path" is given twice; send each argument once`},
		{"duplicate after a nested object", `{"path":{"x":1},"y":[1,{"z":2}],"path":"b"}`,
			`argument "path" is given twice; send each argument once`},
		{"nested duplicate", `{"opts":{"lang":"go","lang":"rust"}}`,
			`argument "opts" holds the key "lang" twice; send each key once`},
		{"duplicate inside an array", `{"items":[1,{"k":1,"k":2}]}`,
			`argument "items" holds the key "k" twice; send each key once`},
		{"deep duplicate", `{"a":{"b":{"c":[[{"d":1,"d":null}]]}}}`,
			`argument "a" holds the key "d" twice; send each key once`},
		{"top-level keys differing in case", `{"path":"a.txt","PATH":"b.txt"}`,
			`arguments "path" and "PATH" differ only in case; send each argument once, spelled as the tool's schema gives it`},
		{"Kelvin sign folds to k", "{\"k\":1,\"\u212a\":2}", `differ only in case`},
		{"double-encoded duplicate", `"{\"path\":\"a\",\"path\":\"b\"}"`,
			`argument "path" is given twice; send each argument once`},
		{"invalid UTF-8 in a value", "{\"path\":\"a\xff\"}", "arguments are not valid UTF-8 text; send them again encoded as UTF-8"},
		{"invalid UTF-8 in a key", "{\"pa\xc3th\":1}", "not valid UTF-8"},
		{"lone high surrogate", `{"path":"a\ud800.txt"}`,
			`argument "path" holds an escaped UTF-16 surrogate with no partner (\ud800); send the text as valid Unicode`},
		{"lone low surrogate", `{"path":"\udc00"}`, `argument "path" holds an escaped UTF-16 surrogate with no partner (\udc00)`},
		{"high surrogate then a letter", `{"path":"\ud800\u0041"}`, `(\ud800)`},
		{"surrogate in a key", `{"\ud800":1}`, `an argument name holds an escaped UTF-16 surrogate`},
		{"surrogate in a double-encoded string", `"{\"path\":\"a\ud800\"}"`, `arguments hold an escaped UTF-16 surrogate with no partner (\ud800)`},
		{"array", `[{"path":"a"}]`, "arguments must be a JSON object, not an array"},
		{"broken", `{"path":"a",`, "arguments must be a JSON object: unexpected end of JSON input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckArgs(json.RawMessage(c.raw))
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
			if strings.Count(err.Error(), ";") != 1 && !strings.HasPrefix(c.wantErr, "arguments must be") {
				t.Errorf("error %q is not one sentence saying what and how to fix it", err)
			}
		})
	}
}

// TestDecodeArgsRefusesWhatCheckArgsRefuses: the tool itself must not run
// the last of two keys even if a caller skipped CheckArgs.
func TestDecodeArgsRefusesWhatCheckArgsRefuses(t *testing.T) {
	for _, raw := range []string{
		`{"query":"scratch","query":"important","note":""}`,
		`{"query":"go","Query":"rm","note":""}`,
		`{"query":"go","note":"","tags":{"a":1,"a":2}}`,
		"{\"query\":\"go\xff\",\"note\":\"\"}",
		`{"query":"go\udfff","note":""}`,
	} {
		var got sampleArgs
		err := DecodeArgs(json.RawMessage(raw), &got)
		want := CheckArgs(json.RawMessage(raw))
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("DecodeArgs(%s) = %v, want CheckArgs's refusal %v", raw, err, want)
		}
	}
}

func TestShownKeyIsCut(t *testing.T) {
	long := strings.Repeat("k", 10_000)
	err := CheckArgs(json.RawMessage(`{"` + long + `":1,"` + long + `":2}`))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error %d bytes long, want a short sentence: %.100v", len(fmt.Sprint(err)), err)
	}
}

// FuzzCheckArgs checks CheckArgs and DecodeArgs against encoding/json:
// neither panics; whatever CheckArgs accepts decodes into map[string]any and
// re-encodes with every key it held (no key was silently dropped as a
// duplicate), and the re-encoding is accepted again; DecodeArgs never accepts
// what CheckArgs refuses; and an object with key repeated, at the top or
// nested, is always refused.
func FuzzCheckArgs(f *testing.F) {
	for _, s := range []struct{ raw, key string }{
		{``, "path"}, {`{}`, ""}, {`null`, "a"}, {`{"path":"a","path":"b"}`, "path"},
		{`{"a":{"k":1,"k":2}}`, "k"}, {`"{\"path\":\"a\"}"`, "pat\u0068"}, {`{"path":"a","PATH":"b"}`, "K"},
		{`{"path":"\ud800"}`, "\ufffd"}, {"{\"p\":\"\xff\"}", "\xff"}, {`{"a":[1,{"b":[{"c":{}}]}],"d":1e400}`, ""},
		{`{"query":"go","note":"","tags":["x"]}`, "note"}, {`{"a":"\\ud800\ud83d\ude00"}`, `\`},
	} {
		f.Add(s.raw, s.key)
	}
	f.Fuzz(func(t *testing.T, raw, key string) {
		err := CheckArgs(json.RawMessage(raw))
		var dst sampleArgs
		if derr := DecodeArgs(json.RawMessage(raw), &dst); err != nil && derr == nil {
			t.Fatalf("DecodeArgs accepted %q, which CheckArgs refused: %v", raw, err)
		}
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line", msg)
			}
		} else if obj := unwrapArgs(t, raw); obj != nil {
			// UseNumber: 1e400 is valid JSON that a float64 cannot hold.
			dec := json.NewDecoder(bytes.NewReader(obj))
			dec.UseNumber()
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("CheckArgs accepted %q, which encoding/json cannot decode: %v", raw, err)
			}
			sent := tokenKeys(t, obj)
			re, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if kept := tokenKeys(t, re); !slices.Equal(sent, kept) {
				t.Fatalf("CheckArgs accepted %q: its keys %q came back from encoding/json as %q", raw, sent, kept)
			}
			if err := CheckArgs(re); err != nil {
				t.Fatalf("re-encoded %s refused: %v", re, err)
			}
		}

		k, _ := json.Marshal(key)
		v, _ := json.Marshal(raw) // any valid JSON value
		for _, dup := range []string{
			fmt.Sprintf(`{%s:%s,%s:1}`, k, v, k),
			fmt.Sprintf(`{"x":[{%s:null, "y":{}, %s:%s}]}`, k, k, v),
			fmt.Sprintf(`%q`, fmt.Sprintf(`{%s:1,%s:2}`, k, k)),
		} {
			if err := CheckArgs(json.RawMessage(dup)); err == nil {
				t.Fatalf("CheckArgs accepted %s, which repeats %s", dup, k)
			}
			if err := DecodeArgs(json.RawMessage(dup), &dst); err == nil {
				t.Fatalf("DecodeArgs accepted %s, which repeats %s", dup, k)
			}
		}
	})
}

// unwrapArgs is the JSON object raw stands for (undoing double encoding), or
// nil when raw is empty or null.
func unwrapArgs(t *testing.T, raw string) []byte {
	t.Helper()
	b := bytes.TrimSpace([]byte(raw))
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		var inner string
		if err := json.Unmarshal(b, &inner); err != nil {
			t.Fatalf("accepted string %q does not decode: %v", raw, err)
		}
		b = bytes.TrimSpace([]byte(inner))
	}
	return b
}

// tokenKeys lists, sorted, every object key in the JSON value b at any depth,
// one entry per occurrence, as encoding/json's token stream reads them.
func tokenKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var keys []string
	var value func()
	value = func() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("token stream of %s: %v", b, err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatalf("token stream of %s: %v", b, err)
				}
				keys = append(keys, k.(string))
				value()
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				value()
			}
			dec.Token()
		}
	}
	value()
	slices.Sort(keys)
	return keys
}
