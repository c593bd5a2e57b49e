package tools

import (
	"encoding/json"
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
