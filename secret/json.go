package secret

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Masked replaces the value of an argument that may hold a secret.
const Masked = "***"

// secretKeyParts are the fragments of a lower-cased argument name that mark
// its value as a secret.
var secretKeyParts = []string{"token", "key", "secret", "password", "authorization", "api_key", "cookie"}

// invalidArguments stands in for arguments that are not JSON: they cannot be
// searched for secrets, so none of their text is kept.
var invalidArguments = json.RawMessage(`"(arguments were not valid JSON and are not recorded)"`)

// MaskJSON returns args with the value of every key whose lower-cased
// name contains token, key, secret, password, authorization, api_key or
// cookie replaced by "***", at any depth, and every other string value
// passed through Mask, so that a secret is masked by what it is as well
// as by where it is: the content of a file being written, a URL with a
// password, a key under an innocent name. Numbers, booleans and null are kept
// as they are, and an array of strings is read as a command line too (see
// MaskArgv). Arguments with nothing to mask, and empty input, are returned
// unchanged, in their own spelling and key order.
func MaskJSON(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // keeps 12345678901234567890 exact
	var v any
	if err := dec.Decode(&v); err != nil || len(bytes.Trim(args[dec.InputOffset():], " \t\r\n")) > 0 {
		return invalidArguments // broken, or more after the value ("0 ]")
	}
	if s, ok := v.(string); ok {
		// Arguments are objects; a string is how the server keeps arguments
		// the model wrote as broken JSON, and a secret may sit inside it.
		return maskWrapped(s)
	}
	masked, changed := mask(v)
	if !changed {
		return args
	}
	out, err := json.Marshal(masked)
	if err != nil {
		return invalidArguments
	}
	return out
}

// maskWrapped masks the JSON held in a string, or drops the string when it
// holds no JSON, since its secrets cannot be told apart from the rest.
func maskWrapped(s string) json.RawMessage {
	inner := json.RawMessage(s)
	if len(bytes.TrimSpace(inner)) == 0 || !json.Valid(inner) {
		return invalidArguments
	}
	masked := MaskJSON(inner)
	if bytes.Equal(masked, invalidArguments) {
		return masked
	}
	out, err := json.Marshal(string(masked))
	if err != nil {
		return invalidArguments
	}
	return out
}

// mask masks v in place where it can and reports whether anything changed.
func mask(v any) (any, bool) {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if isSecretKey(k) {
				if val != Masked {
					t[k], changed = Masked, true
				}
				continue
			}
			var c bool
			t[k], c = mask(val)
			changed = changed || c
		}
	case []any:
		flagged := false // the element before was a flag naming a secret
		for i, val := range t {
			if str, ok := val.(string); ok && flagged && !strings.HasPrefix(str, "-") && str != Masked {
				t[i], changed = Masked, true
				flagged = false
				continue
			}
			var c bool
			t[i], c = mask(val)
			changed = changed || c
			str, _ := val.(string)
			flagged = secretFlag(str)
		}
	case string:
		m := Mask(t)
		return m, m != t
	}
	return v, changed
}

// MaskArgv returns a copy of a command line kept as a list (an MCP server's
// command) with every argument masked and the argument after a flag that
// names a secret (--token, --api-key, --password, -p is not one) replaced by
// Masked; argv itself is not changed.
func MaskArgv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	flagged := false
	for i, a := range argv {
		if flagged && !strings.HasPrefix(a, "-") {
			out[i] = Masked
		} else {
			out[i] = Mask(a)
		}
		flagged = secretFlag(a)
	}
	return out
}

// secretFlag reports a --flag, without a value of its own, whose name says
// that the next argument is a secret.
func secretFlag(a string) bool {
	name, ok := strings.CutPrefix(a, "--")
	return ok && name != "" && !strings.Contains(name, "=") && secretFlagName(name)
}

// DetectField is Detect for a named value, such as an argument of a tool
// call: a name that says secret (api_key, password) is enough, as it is for
// MaskJSON.
func DetectField(name, value string) (kind string, ok bool) {
	if value != "" && value != Masked && isSecretKey(name) {
		return nameKind(name), true
	}
	return Detect(value)
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, p := range secretKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}
