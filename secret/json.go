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
// as they are. Empty input is returned unchanged.
func MaskJSON(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // keeps 12345678901234567890 exact
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return invalidArguments
	}
	if s, ok := v.(string); ok {
		// Arguments are objects; a string is how the server keeps arguments
		// the model wrote as broken JSON, and a secret may sit inside it.
		return maskWrapped(s)
	}
	out, err := json.Marshal(mask(v))
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

func mask(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if isSecretKey(k) {
				t[k] = Masked
			} else {
				t[k] = mask(val)
			}
		}
	case []any:
		for i, val := range t {
			t[i] = mask(val)
		}
	case string:
		return Mask(t)
	}
	return v
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
