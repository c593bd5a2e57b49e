package secret

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// Keys in the formats Mask knows; none of them is real.
const (
	fakeOpenAI     = "sk-abc123DEF456ghi789JKL012mno345PQR678stu"
	fakeOpenAIProj = "sk-proj-Ab3_cD4-eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5"
	fakeGitHub     = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5"
	fakeGitHubPAT  = "github_pat_11ABCDEFG0abcdefghij_KLMNOPQRSTUVwxyz0123456789"
	fakeAWS        = "AKIAIOSFODNN7EXAMPLE"
	fakeSlack      = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"
	fakeJWT        = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
)

func TestMaskSecrets(t *testing.T) {
	cases := []struct{ name, in, want string }{
		// URL credentials
		{"URL password", "GET http://admin:hunter2pw@example.com/api", "GET http://admin:***@example.com/api"},
		{"URL password with @ inside", "postgres://app:p@ss@db:5432/app", "postgres://app:***@db:5432/app"},
		{"URL empty user", "redis://:hunter2pw@cache:6379/0", "redis://:***@cache:6379/0"},
		{"URL token as user", "git clone https://" + fakeGitHub + "@github.com/o/r", "git clone https://***@github.com/o/r"},
		{"URL opaque token as user", "https://a1b2c3d4e5f6a7b8c9d0@git.example.com/r", "https://***@git.example.com/r"},
		{"URL token user with throwaway password", "https://9f8e7d6c5b4a39281706f5e4:x-oauth-basic@github.com/", "https://***:***@github.com/"},
		// query parameters
		{"query api_key kept q", "https://api.example.com/v1?api_key=XYZ123&q=go", "https://api.example.com/v1?api_key=***&q=go"},
		{"query token", "https://x.io/cb?token=abc.def", "https://x.io/cb?token=***"},
		{"query access_token in fragment", "https://x.io/cb#access_token=ya29.abc&expires_in=3600", "https://x.io/cb#access_token=***&expires_in=3600"},
		{"query client_secret", "https://x.io/oauth?client_id=42&client_secret=s3cr3t", "https://x.io/oauth?client_id=42&client_secret=***"},
		{"query key", "https://maps.example.com/js?key=AIzaSyA1&v=3", "https://maps.example.com/js?key=***&v=3"},
		{"query password pwd passwd", "http://h/login?user=ada&password=a&pwd=b&passwd=c", "http://h/login?user=ada&password=***&pwd=***&passwd=***"},
		{"query auth", "http://h/x?auth=abc&page=2", "http://h/x?auth=***&page=2"},
		{"query AWS signature", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AK%2F2026&X-Amz-Signature=ab12&X-Amz-Expires=60",
			"https://b.s3.amazonaws.com/k?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60"},
		{"query sig", "https://a.blob.core.windows.net/c?sv=2020&sig=abc%3D", "https://a.blob.core.windows.net/c?sv=2020&sig=***"},
		{"query session", "http://shop/cart?sessionid=9a8b7c&item=3", "http://shop/cart?sessionid=***&item=3"},
		{"query upper case", "http://h/?API_KEY=abc&Token=def", "http://h/?API_KEY=***&Token=***"},
		// key formats
		{"OpenAI", "key " + fakeOpenAI + " set", "key *** set"},
		{"OpenAI project", `"` + fakeOpenAIProj + `"`, `"***"`},
		{"GitHub ghp_", "token ghp is " + fakeGitHub + ".", "token ghp is ***."},
		{"GitHub gho_ ghu_ ghs_ ghr_", "gho_" + fakeGitHub[4:] + " ghu_" + fakeGitHub[4:] + " ghs_" + fakeGitHub[4:] + " ghr_" + fakeGitHub[4:], "*** *** *** ***"},
		{"GitHub fine-grained", "(" + fakeGitHubPAT + ")", "(***)"},
		{"AWS access key id", "aws_access_key_id " + fakeAWS + "\n", "aws_access_key_id ***\n"},
		{"AWS session key id", "ASIAY34FZKBOKMUTVV7A expires", "*** expires"},
		{"Slack", "slack " + fakeSlack, "slack ***"},
		{"Slack xoxp", "xoxp-1111111111-2222222222", "***"},
		{"Bearer", "sent Bearer " + fakeJWT + " to the API", "sent Bearer *** to the API"},
		{"Bearer lower case", "authorization bearer abcd1234efgh.", "authorization bearer ***."},
		// NAME=value and NAME: value
		{"env line", "DB_HOST=db\nDB_PASSWORD=hunter2\n", "DB_HOST=db\nDB_PASSWORD=***\n"},
		{"env line with spaces and comment", "SECRET_KEY=two words # prod\nDEBUG=1", "SECRET_KEY=***\nDEBUG=1"},
		{"export quoted", `export GITHUB_TOKEN="abc def"` + "\n", `export GITHUB_TOKEN="***"` + "\n"},
		{"export single quoted", "export API_KEY='abc'", "export API_KEY='***'"},
		{"set on Windows", "set AUTH_TOKEN=abc", "set AUTH_TOKEN=***"},
		{"YAML", "db:\n  user: app\n  password: hunter2\n  port: 5432\n", "db:\n  user: app\n  password: ***\n  port: 5432\n"},
		{"YAML list item", "env:\n  - apiKey: abc123\n", "env:\n  - apiKey: ***\n"},
		{"YAML quoted with comment", `client_secret: "abc" # rotate`, `client_secret: "***" # rotate`},
		{"JSON", `{"user":"ada","password":"hunter2","token": "t-1"}`, `{"user":"ada","password":"***","token": "***"}`},
		{"escaped JSON", `args {\"apiKey\":\"abc\",\"q\":\"go\"}`, `args {\"apiKey\":\"***\",\"q\":\"go\"}`},
		{"JSON text of a tool result", `{"result":"A=1\nDB_PASSWORD=hunter2 now\nB=2"}`, `{"result":"A=1\nDB_PASSWORD=***\nB=2"}`},
		{"INI with spaces", "[db]\npasswd = hunter2\n", "[db]\npasswd = ***\n"},
		{"properties", "spring.datasource.password=hunter2", "spring.datasource.password=***"},
		{"mid-line", "run with DB_PASSWORD=hunter2 set", "run with DB_PASSWORD=*** set"},
		{"header", "Authorization: Basic dXNlcjpwYXNz\nAccept: */*", "Authorization: Basic ***\nAccept: */*"},
		{"header in a command", `curl -H "X-Api-Key: abc123" https://x.io`, `curl -H "X-Api-Key: ***" https://x.io`},
		{"cookie header", "Cookie: sid=abc; theme=dark", "Cookie: ***"},
		{"Go assignment", `token := "abc"`, `token := "***"`},
		{"PHP array", `'db_password' => 'abc',`, `'db_password' => '***',`},
		{"open quote masks the line", "PASSWORD=\"abc def\nNEXT=1", "PASSWORD=\"***\nNEXT=1"},
		{"camelCase", "use accessToken=abc refreshToken=def", "use accessToken=*** refreshToken=***"},
		{"keys on lines of JSON text", `{"result":"` + fakeGitHub + `\n` + fakeOpenAI + `\r\n\t` + fakeAWS + `"}`, `{"result":"***\n***\r\n\t***"}`},
		{"HTML-escaped JSON", `"url":"https://x.io/?q=1\u0026token=abc"`, `"url":"https://x.io/?q=1\u0026token=***"`},
		// private keys
		{"private key block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAKCAQ\n-----END RSA PRIVATE KEY-----\ndone",
			"key:\n-----BEGIN RSA PRIVATE KEY-----\n***\n-----END RSA PRIVATE KEY-----\ndone"},
		{"private key block cut short", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "-----BEGIN OPENSSH PRIVATE KEY-----\n***"},
		{"private key block in JSON text", `{"result":"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"}`,
			`{"result":"-----BEGIN PRIVATE KEY-----\n***\n-----END PRIVATE KEY-----\n"}`},
		{"several at once", "curl http://u:pw1@h/?token=t1 -H 'Authorization: Bearer " + fakeJWT + "' # " + fakeGitHub,
			"curl http://u:***@h/?token=*** -H 'Authorization: Bearer ***' # ***"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mask(tc.in); got != tc.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMaskKeepsLookAlikes(t *testing.T) {
	for _, in := range []string{
		"A token bucket limits the rate; each request takes one token.",
		"skip the skim; ask-me-anything; task-sk-1234567890abcdefghijkl",
		"sk-learn-compatible-estimators-for-everyone",
		"see https://go.dev/doc/install?download=go1.26&arch=amd64#linux",
		"ssh://git@github.com/o/r.git and postgres://postgres@localhost/app",
		"max_results=5 max_tokens: 4096 prompt_tokens=12 tokenizer: cl100k",
		"commit 3f2a9c4b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
		"keyword: golang\nkeyboard=us\nauthor: Ada Lovelace\nauthority=ca",
		"session: s_1 signature: Ada",
		"the bearer of bad news; Bearer tokens are described in RFC 6750",
		"if token == \"\" { return }",
		"AKIA is how AWS key ids begin; AKIAIOSFODNN7EXAMPLE2 is too long",
		"PWD=/home/ada\nOLDPWD=/tmp",
		"ghp_short gho_ github_pat_x xoxb-1",
		"auth_enabled: true\napi_key: null",
		"credentials:\n  aws:\n",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"http://localhost:8080/healthz",
		"",
		"Ünïcödé tëxt — naïve café ☕",
	} {
		if got := Mask(in); got != in {
			t.Errorf("Mask(%q) = %q, want it unchanged", in, got)
		}
	}
}

// plant returns a key in one of the formats Mask knows, made from seed.
func plant(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed>>7))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	pick := func(set string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[r.IntN(len(set))]
		}
		return string(b)
	}
	switch seed % 8 {
	case 0:
		return "ghp_" + pick(alnum, 36)
	case 1:
		return "sk-proj-" + pick(alnum, 40) + "7"
	case 2:
		return "AKIA" + pick(upper, 16)
	case 3:
		return "AIza" + pick(alnum, 35)
	case 4:
		return "glpat-" + pick(alnum, 20)
	case 5:
		return "sk_live_" + pick(alnum, 24)
	case 6:
		return "npm_" + pick(alnum, 36)
	default:
		return "github_pat_" + pick(alnum, 22) + "_" + pick(alnum, 59)
	}
}

func FuzzMask(f *testing.F) {
	for _, s := range []string{
		"http://admin:hunter2pw@example.com/?api_key=XYZ&q=go",
		"OPENAI_API_KEY=" + fakeOpenAI + "\nDB_PASSWORD=hunter2\n",
		"export TOKEN=\"a b\"\npassword: x\n  - apiKey: y",
		`{"result":"A=1\nDB_PASSWORD=hunter2\n","password":"p",\"token\":\"t\"}`,
		"Authorization: Bearer " + fakeJWT,
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
		"-----BEGIN EC PRIVATE KEY-----\\nMIIE",
		fakeGitHub + "-" + fakeOpenAIProj + "_" + fakeAWS,
		"a token bucket; skip; max_tokens=5",
		"https://" + fakeGitHub + "@github.com x:y@z",
		"run --token abc --api-key 'x y' --password=p",
		"my password is swordfish; the API key is Zz9",
		"AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH",
	} {
		f.Add(s, uint16(len(s)/2), uint64(len(s)))
	}
	f.Fuzz(func(t *testing.T, in string, at uint16, seed uint64) {
		out := Mask(in)
		// Each masked span becomes *** (a private key block's body \n***\n),
		// so the text can grow, but never by more than this.
		if len(out) > 3*len(in)+8 {
			t.Fatalf("Mask grew %d bytes to %d: %q", len(in), len(out), out)
		}
		if _, found := Detect(in); found != (out != in) {
			t.Fatalf("Detect(%q) = %v, but Mask gives %q", in, found, out)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Mask(%q) = %q is not valid UTF-8", in, out)
		}
		if again := Mask(out); again != out {
			t.Fatalf("Mask is not idempotent:\n in    %q\n once  %q\n twice %q", in, out, again)
		}

		key := plant(seed)
		i := int(at) % (len(in) + 1)
		for i > 0 && i < len(in) && !utf8.RuneStart(in[i]) {
			i--
		}
		planted := in[:i] + " " + key + " " + in[i:]
		if got := Mask(planted); strings.Contains(got, key) {
			t.Fatalf("planted key %s survived in %q", key, got)
		}
	})
}

// pageText is about 20 KB of what read_webpage returns: prose, a config
// snippet, commands and links, with a few secrets among them.
func pageText() string {
	var b strings.Builder
	paras := []string{
		"Rate limiting with a token bucket: every request takes a token, and tokens refill at a steady rate. ",
		"See https://docs.example.com/guide/rate-limits?lang=en&version=3#buckets for the details, and the ",
		"changelog at https://github.com/example/limiter/releases/tag/v1.4.2 (commit 3f2a9c4b8d7e6f5a4b3c). ",
		"To configure the client, set the environment and restart the service; max_tokens: 4096 is the default.\n",
		"```\nexport LIMITER_URL=https://limiter.internal:8443\nexport LIMITER_API_KEY=" + fakeOpenAI + "\n```\n",
		"The author, Ada Lovelace, notes that keyboard shortcuts are listed under Settings > Keys.\n",
		"curl -H 'Authorization: Bearer " + fakeJWT + "' https://api.example.com/v1/limits?bucket=default\n",
		"Database: postgres://app:hunter2pw@db.internal:5432/limits?sslmode=require\n",
	}
	for i := 0; b.Len() < 20_000; i++ {
		b.WriteString(paras[i%len(paras)])
		if i%3 == 0 {
			b.WriteString("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ")
		}
	}
	return b.String()
}

// BenchmarkMask measures Mask on a 64 KB tool result (a page with a few
// secrets), the same text once masked (what a second surface sees), and
// the page as JSON text, as a read_file result is sent.
func BenchmarkMask(b *testing.B) {
	text := pageText()
	for len(text) < 64<<10 {
		text += text
	}
	text = strings.ToValidUTF8(text[:64<<10], "")
	clean := Mask(text)
	quoted, _ := json.Marshal(map[string]string{"content": text})
	for _, bc := range []struct{ name, text string }{{"with secrets", text}, {"already masked", clean}, {"as JSON", string(quoted)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				Mask(bc.text)
			}
		})
	}
}
