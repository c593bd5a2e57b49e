package secret

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMaskJSONByValue(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"file content", `{"path":"notes.env","content":"OPENAI_API_KEY=` + fakeOpenAI + `\nDB_PASSWORD=hunter2\nDEBUG=1"}`,
			`{"content":"OPENAI_API_KEY=***\nDB_PASSWORD=***\nDEBUG=1","path":"notes.env"}`},
		{"URL", `{"url":"http://admin:hunter2pw@example.com/?api_key=XYZ&q=go"}`,
			`{"url":"http://admin:***@example.com/?api_key=***\u0026q=go"}`}, // json.Marshal escapes &
		{"key under an innocent name", `{"value":"` + fakeGitHub + `","n":1}`, `{"n":1,"value":"***"}`},
		{"deep in arrays", `{"cmds":[["echo","` + fakeAWS + `"]],"ok":true}`, `{"cmds":[["echo","***"]],"ok":true}`},
		{"JSON held in a string", `"{\"note\":\"Bearer ` + fakeJWT + `\"}"`, `"{\"note\":\"Bearer ***\"}"`},
		{"nothing secret kept as written", `{"query":"token bucket","max_results":5}`, `{"query":"token bucket","max_results":5}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MaskJSON(json.RawMessage(tc.in))
			if string(got) != tc.want {
				t.Errorf("MaskJSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzMaskJSON(f *testing.F) {
	f.Add(`{"api_key":"sk-1","nested":[{"password":"p"}],"q":"go"}`)
	f.Add(`{"a":1`)
	f.Add(`"token"`)
	f.Fuzz(func(t *testing.T, in string) {
		got := MaskJSON(json.RawMessage(in))
		if len(bytes.TrimSpace([]byte(in))) == 0 {
			if string(got) != in {
				t.Fatalf("empty input changed to %q", got)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("MaskJSON(%q) = %q is not JSON", in, got)
		}
		if again := MaskJSON(got); !bytes.Equal(again, got) {
			t.Fatalf("masking is not stable: %q then %q", got, again)
		}
	})
}

func TestMaskJSON(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"no secrets kept as written", `{"query":"go","max_results":5}`, `{"query":"go","max_results":5}`},
		{"flat secrets", `{"api_key":"sk-1","Authorization":"Bearer x","path":"a.txt"}`, `{"Authorization":"***","api_key":"***","path":"a.txt"}`},
		{"nested and in arrays", `{"headers":[{"Cookie":"c=1","accept":"*/*"}],"auth":{"AccessToken":"t","user":"ada"}}`,
			`{"auth":{"AccessToken":"***","user":"ada"},"headers":[{"Cookie":"***","accept":"*/*"}]}`},
		{"object value masked whole", `{"secrets":{"a":1},"db_password":null}`, `{"db_password":"***","secrets":"***"}`},
		{"big numbers kept exact", `{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
		{"not an object", `["token"]`, `["token"]`},
		{"empty", ``, ``},
		{"invalid JSON is not kept", `{"password":"hunter2"`, string(invalidArguments)},
		{"trailing data is not kept", `{"a":1} {"token":"x"}`, string(invalidArguments)},
		{"broken arguments kept as a string are not kept", `"{\"password\":\"hunter2\""`, string(invalidArguments)},
		{"JSON held in a string is masked", `"{\"token\":\"t\",\"q\":1}"`, `"{\"q\":1,\"token\":\"***\"}"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MaskJSON(json.RawMessage(tc.in))
			if string(got) != tc.want {
				t.Errorf("MaskJSON(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if len(got) > 0 && !json.Valid(got) {
				t.Errorf("result %s is not JSON", got)
			}
		})
	}
}
