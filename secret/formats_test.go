package secret

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// More formats, none of them a real key.
const (
	fakeStripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	fakeGoogle = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
	fakeNPM    = "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	fakeHF     = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"
	fakeGitLab = "glpat-xY3zA9bC7dE5fG1hJ2kL"
)

func TestMaskFormats(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"Stripe live", "stripe " + fakeStripe + ".", "stripe ***."},
		{"Stripe test and restricted", "sk_test_4eC39HqLyjWDarjtT1zdp7dc rk_live_4eC39HqLyjWDarjtT1zdp7dc", "*** ***"},
		{"Google API key", `"key": "` + fakeGoogle + `"`, `"key": "***"`},
		{"Google API key in running text", "maps key " + fakeGoogle + " works", "maps key *** works"},
		{"npm", "//registry.npmjs.org/:_authToken=" + fakeNPM, "//registry.npmjs.org/:_authToken=***"},
		{"npm bare", "token " + fakeNPM, "token ***"},
		{"Hugging Face", "HF says " + fakeHF, "HF says ***"},
		{"GitLab", "git push with " + fakeGitLab, "git push with ***"},
		// URLs: query keys and userinfo
		{"query api-key", "https://llm.example/v1?api-key=SECRET123", "https://llm.example/v1?api-key=***"},
		{"query key and sig", "https://x.example/?key=abc&sig=def&v=2", "https://x.example/?key=***&sig=***&v=2"},
		{"query value before a colon", "fetch http://h/p?api_key=abc: refused", "fetch http://h/p?api_key=***: refused"},
		{"query access_token and secret", "http://h/cb?access_token=a1&secret=b2&page=3", "http://h/cb?access_token=***&secret=***&page=3"},
		// command lines
		{"--token VALUE", "mcp-server --token abcdef123 --port 8", "mcp-server --token *** --port 8"},
		{"--api-key VALUE", "tool --api-key 'two words' -v", "tool --api-key '***' -v"},
		{"--password VALUE", "login --password hunter2", "login --password ***"},
		{"--token=VALUE", "run --token=abcdef123", "run --token=***"},
		{"--token with a known key", "--token " + fakeGitHub, "--token ***"},
		// prose
		{"the passphrase is", "The passphrase is correct-horse-battery.", "The passphrase is ***."},
		{"my password is", "my password is swordfish, don't tell", "my password is ***, don't tell"},
		{"password was quoted", `his password was "open sesame" then`, `his password was "***" then`},
		{"api key colon", "api key: abc123xyz", "api key: ***"},
		{"the API key is", "the API key is Zz9-abc", "the API key is ***"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mask(tc.in); got != tc.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestMaskKeepsOrdinaryText lists the look-alikes Mask must leave alone, and
// so the choices made: a word after "password is" that is an ordinary word
// (wrong, required, an -ed or -ing form) is not the password; a key or a
// token named in prose needs a qualifier (the API key is, not the key is);
// a flag's value that is a path or another flag is kept; hashes, UUIDs and
// base64 data have no format and no name, so they stay.
func TestMaskKeepsOrdinaryText(t *testing.T) {
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG\r\n\x1a\n IHDR pixels and more pixels ", 40)))
	for _, in := range []string{
		"The password is wrong. The password is required. My password was changed yesterday.",
		"the password is being reset; your password is too short",
		"the key is to relax; a token is what the bucket holds; the secret is out",
		"commit 3f2a9c4b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a\nAuthor: Ada <ada@example.com>\n\n    fix: tokens",
		"a1b2c3d 3f2a9c4 Merge branch 'main' of github.com:o/r",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"id 123e4567-e89b-12d3-a456-426614174000 and 550E8400-E29B-41D4-A716-446655440000",
		png,
		"hf_hub_download(repo_id) npm_config_cache sk_live_short skip_test_ AIzaShort",
		"--key-file ./id_ed25519 --token-file /run/secrets/t --password-stdin --max-tokens 5",
		"run --no-color --api-key -v",
		"login --password-file secrets.txt --api-key-env OPENAI_API_KEY --token-type bearer",
		"glpat- is how GitLab tokens begin",
		"pass the salt; passport number; bypass",
	} {
		if got := Mask(in); got != in {
			t.Errorf("Mask changed ordinary text\n in %q\nout %q", in, got)
		}
		if kind, ok := Detect(in); ok {
			t.Errorf("Detect(%q) = %q, want nothing", in, kind)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := []struct{ in, kind string }{
		{fakeOpenAI, "an API key"},
		{"export OPENAI_API_KEY=" + fakeOpenAI, "an API key"},
		{fakeGoogle, "an API key"},
		{fakeStripe, "an API key"},
		{fakeGitHub, "an access token"},
		{fakeGitLab, "an access token"},
		{fakeAWS, "an access key id"},
		{"DB_PASSWORD=hunter2", "a password"},
		{"my password is swordfish", "a password"},
		{"postgres://app:pw@db/app", "a password"},
		{"Authorization: Bearer " + fakeJWT, "a credential"},
		{"sent Bearer " + fakeJWT, "a bearer token"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "a private key"},
		{"https://x/?token=abc", "an access token"},
	}
	for _, tc := range cases {
		kind, ok := Detect(tc.in)
		if !ok || kind != tc.kind {
			t.Errorf("Detect(%q) = %q, %v; want %q", tc.in, kind, ok, tc.kind)
		}
	}
	if kind, ok := Detect(Mask("DB_PASSWORD=hunter2")); ok {
		t.Errorf("Detect finds %q in masked text", kind)
	}
}

func TestDetectField(t *testing.T) {
	cases := []struct {
		name, value, kind string
		ok                bool
	}{
		{"api_key", "abc", "an API key", true},
		{"password", "x", "a password", true},
		{"content", "OPENAI_API_KEY=" + fakeOpenAI, "an API key", true},
		{"path", "notes/todo.txt", "", false},
		{"api_key", "", "", false},
	}
	for _, tc := range cases {
		kind, ok := DetectField(tc.name, tc.value)
		if ok != tc.ok || kind != tc.kind {
			t.Errorf("DetectField(%q, %q) = %q, %v; want %q, %v", tc.name, tc.value, kind, ok, tc.kind, tc.ok)
		}
	}
}

func TestMaskArgv(t *testing.T) {
	argv := []string{"npx", "server", "--token", "abc123", "--api-key", fakeOpenAI, "--verbose", "--password", "--port", "8", "https://h/?api_key=q1"}
	keep := slices.Clone(argv)
	got := MaskArgv(argv)
	want := []string{"npx", "server", "--token", "***", "--api-key", "***", "--verbose", "--password", "--port", "8", "https://h/?api_key=***"}
	if !slices.Equal(got, want) {
		t.Errorf("MaskArgv\n got %q\nwant %q", got, want)
	}
	if !slices.Equal(argv, keep) {
		t.Error("MaskArgv changed its argument")
	}
	if MaskArgv(nil) != nil {
		t.Error("MaskArgv(nil) is not nil")
	}
}

func TestMaskJSONCommandLines(t *testing.T) {
	in := `{"command":["curl","--token","abc123","-v"],"q":"go"}`
	got := MaskJSON(json.RawMessage(in))
	if want := `{"command":["curl","--token","***","-v"],"q":"go"}`; string(got) != want {
		t.Errorf("MaskJSON(%s) = %s, want %s", in, got, want)
	}
}
