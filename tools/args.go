package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeArgs decodes a tool call's raw JSON arguments into dst, a pointer to a
// struct whose fields carry `json:"name"` tags. It is stricter than
// json.Unmarshal, because a model that misspells an argument must be told so
// rather than have it silently ignored, and each failure is one sentence the
// model can act on:
//
//   - empty arguments (or null) count as {};
//   - anything but a JSON object is refused, except a JSON string that itself
//     holds an object, which some models send (double-encoded arguments);
//   - a key that names no field is refused, listing the expected names;
//   - a field tagged `arg:"required"` must be present and not null, and when it
//     is a string it must not be blank unless the tag is `arg:"required,empty"`;
//   - a value of the wrong JSON type is refused naming the type expected.
//     Numbers sent as numeric strings ("5") are accepted for number fields, and
//     "true"/"false" for bool fields, since models often quote them.
//
// Key matching is exact (encoding/json would match case-insensitively), so
// what the model sent is what the schema documents.
func DecodeArgs(raw json.RawMessage, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		// A programming error in a tool, not something the model did.
		return fmt.Errorf("tools.DecodeArgs needs a pointer to a struct, got %T", dst)
	}
	obj, err := argsObject(raw)
	if err != nil {
		return err
	}
	fields := argFields(rv.Elem().Type())

	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.ContainsFunc(fields, func(f argField) bool { return f.name == k }) {
			return fmt.Errorf("unknown argument %q (expected %s)", k, expectedNames(fields))
		}
	}

	for _, f := range fields {
		v, ok := obj[f.name]
		if ok && bytes.Equal(v, []byte("null")) {
			ok = false
		}
		if !ok {
			if f.required {
				return fmt.Errorf("argument %q is required", f.name)
			}
			continue
		}
		fv := rv.Elem().Field(f.index)
		if err := decodeArg(f.name, v, fv); err != nil {
			return err
		}
		if f.required && !f.allowEmpty && fv.Kind() == reflect.String && strings.TrimSpace(fv.String()) == "" {
			return fmt.Errorf("argument %q must not be empty", f.name)
		}
	}
	return nil
}

// CheckArgs reports whether raw can be read only one way, so that the
// arguments a user approves are the arguments that run. It refuses a key
// given twice in one object at any depth (encoding/json would silently keep
// the last one, so {"path": "scratch.tmp", "path": "important.db"} would be
// shown as one file and delete another), two top-level argument names that
// differ only in case (encoding/json matches struct fields case-insensitively),
// text that is not valid UTF-8 and escaped UTF-16 surrogates that pair with
// nothing (both would be silently replaced by U+FFFD), and anything that is
// not one JSON object. Like DecodeArgs, it takes empty arguments and null as
// {}, and a JSON string holding an object as that object. Its error is one
// sentence the model can act on.
func CheckArgs(raw json.RawMessage) error {
	_, err := argsObject(raw)
	return err
}

// errNotUTF8 refuses arguments holding bytes that are not UTF-8.
var errNotUTF8 = errors.New("arguments are not valid UTF-8 text; send them again encoded as UTF-8")

// argsObject parses raw as a JSON object of still-encoded values, after
// CheckArgs's checks.
func argsObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	// Before json.Valid, which accepts invalid UTF-8 inside strings.
	if !utf8.Valid(raw) {
		return nil, errNotUTF8
	}
	if !json.Valid(raw) {
		var obj map[string]json.RawMessage
		err := json.Unmarshal(raw, &obj)
		return nil, fmt.Errorf("arguments must be a JSON object: %s; send them again as one complete JSON object", strings.TrimPrefix(err.Error(), "json: "))
	}
	switch raw[0] {
	case '{':
		if err := checkKeys(raw); err != nil {
			return nil, err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return obj, nil
	case '"':
		var inner string
		if err := json.Unmarshal(raw, &inner); err == nil {
			inner := bytes.TrimSpace([]byte(inner))
			if len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
				// An unpaired surrogate in the outer string is U+FFFD by now.
				if sur, ok := loneSurrogate(raw); ok {
					return nil, fmt.Errorf("arguments hold an escaped UTF-16 surrogate with no partner (%s); send the text as valid Unicode", sur)
				}
				return argsObject(inner)
			}
		}
	}
	return nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(raw))
}

// A keyFrame is one open object or array while checkKeys walks the tokens.
type keyFrame struct {
	keys    map[string]struct{} // nil for an array
	wantKey bool                // an object's next string token is a key
}

// checkKeys walks the valid JSON object raw with encoding/json's token stream
// and refuses the first repeated key (compared after unescaping, so "path"
// and "pat\u0068" are the same key), the first top-level key that differs
// from an earlier one only in case, and the first string holding an unpaired
// surrogate escape.
func checkKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	// Numbers stay text: 1e400 is valid JSON that a float64 cannot hold, and
	// its range is DecodeArgs's concern, not this check's.
	dec.UseNumber()
	var (
		stack  []*keyFrame
		folded map[string]string // top-level keys by their case fold
		arg    string            // the top-level argument being read
		prev   int64
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil { // raw was checked with json.Valid
			return fmt.Errorf("arguments must be a JSON object: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		// The bytes since the previous token: separators, blanks and this token.
		chunk := raw[prev:dec.InputOffset()]
		prev = dec.InputOffset()
		var top *keyFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &keyFrame{keys: map[string]struct{}{}, wantKey: true})
			case '[':
				stack = append(stack, &keyFrame{})
			default: // '}' or ']': the value that closes ends its parent's entry
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].keys != nil {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		case string:
			isKey := top != nil && top.keys != nil && top.wantKey
			if strings.ContainsRune(t, utf8.RuneError) {
				if sur, ok := loneSurrogate(chunk); ok {
					place := "argument " + shownKey(arg)
					if isKey && len(stack) == 1 {
						place = "an argument name"
					}
					return fmt.Errorf("%s holds an escaped UTF-16 surrogate with no partner (%s); send the text as valid Unicode", place, sur)
				}
			}
			if isKey {
				if _, dup := top.keys[t]; dup {
					if len(stack) == 1 {
						return fmt.Errorf("argument %s is given twice; send each argument once", shownKey(t))
					}
					return fmt.Errorf("argument %s holds the key %s twice; send each key once", shownKey(arg), shownKey(t))
				}
				top.keys[t] = struct{}{}
				top.wantKey = false
				if len(stack) == 1 {
					arg = t
					if folded == nil {
						folded = map[string]string{}
					}
					f := foldCase(t)
					if other, ok := folded[f]; ok {
						return fmt.Errorf("arguments %s and %s differ only in case; send each argument once, spelled as the tool's schema gives it", shownKey(other), shownKey(t))
					}
					folded[f] = t
				}
				continue
			}
		}
		// A scalar value ends its object's entry.
		if top != nil && top.keys != nil {
			top.wantKey = true
		}
	}
}

// shownKey quotes a key for an error, cut short so a huge key cannot flood
// the message.
func shownKey(k string) string {
	const most = 64
	if utf8.RuneCountInString(k) > most {
		k = string([]rune(k)[:most]) + "…"
	}
	return strconv.Quote(k)
}

// foldCase maps every rune to the smallest rune of its case-folding orbit, so
// two strings have equal folds exactly when strings.EqualFold holds.
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// loneSurrogate finds the first \uXXXX escape in the JSON text tok that is a
// UTF-16 surrogate without its partner, which encoding/json would turn into
// U+FFFD. It reads escapes only: the decoder has already delimited the tokens.
func loneSurrogate(tok []byte) (string, bool) {
	unit := func(i int) (rune, bool) { // the \uXXXX escape at tok[i], if any
		if i+6 > len(tok) || tok[i] != '\\' || tok[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(tok[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] != '\\' {
			continue
		}
		r, ok := unit(i)
		if !ok {
			i++ // skip the escaped character, which may itself be a backslash
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00: // a high half needs a low half next
			if lo, ok := unit(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return string(tok[i : i+6]), true
		case utf16.IsSurrogate(r):
			return string(tok[i : i+6]), true
		}
		i += 5
	}
	return "", false
}

// An argField is one decodable field of an arguments struct.
type argField struct {
	name       string
	index      int
	required   bool
	allowEmpty bool
}

func argFields(t reflect.Type) []argField {
	var fields []argField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := argField{name: name, index: i}
		for opt := range strings.SplitSeq(sf.Tag.Get("arg"), ",") {
			switch opt {
			case "required":
				f.required = true
			case "empty":
				f.allowEmpty = true
			}
		}
		fields = append(fields, f)
	}
	return fields
}

func expectedNames(fields []argField) string {
	if len(fields) == 0 {
		return "no arguments"
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// decodeArg stores one JSON value into fv, refusing a value of the wrong type
// with a sentence that names the argument and the type it needs.
func decodeArg(name string, v json.RawMessage, fv reflect.Value) error {
	switch fv.Kind() {
	case reflect.String:
		var s string
		if v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("argument %q must be a string, not %s", name, jsonKind(v))
		}
		fv.SetString(s)
	case reflect.Bool:
		b, ok := boolArg(v)
		if !ok {
			return fmt.Errorf("argument %q must be true or false, not %s", name, jsonKind(v))
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f, ok := numberArg(v)
		if !ok {
			return fmt.Errorf("argument %q must be a number, not %s", name, jsonKind(v))
		}
		// A float64 holds every integer exactly up to 2^53, far beyond any
		// count a tool takes; the bounds check keeps the conversion defined.
		if f != math.Trunc(f) || f < -(1<<53) || f > 1<<53 || fv.OverflowInt(int64(f)) {
			return fmt.Errorf("argument %q must be a whole number in range, not %s", name, strconv.FormatFloat(f, 'g', -1, 64))
		}
		fv.SetInt(int64(f))
	case reflect.Float32, reflect.Float64:
		f, ok := numberArg(v)
		if !ok {
			return fmt.Errorf("argument %q must be a number, not %s", name, jsonKind(v))
		}
		fv.SetFloat(f)
	default:
		if err := json.Unmarshal(v, fv.Addr().Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return fmt.Errorf("argument %q has the wrong type: %s does not fit %s", name, te.Value, te.Type)
			}
			return fmt.Errorf("argument %q is not valid: %s", name, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	return nil
}

// numberArg reads a JSON number, or a JSON string that holds one.
func numberArg(v json.RawMessage) (float64, bool) {
	text := string(v)
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, false
		}
		text = strings.TrimSpace(s)
		// Only JSON number syntax, so "0x10" or "Inf" are not numbers here either.
		if text == "" || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) || !json.Valid([]byte(text)) {
			return 0, false
		}
	} else if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// boolArg reads a JSON boolean, or a JSON string "true" or "false".
func boolArg(v json.RawMessage) (bool, bool) {
	switch strings.TrimSpace(strings.Trim(string(v), `"`)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// jsonKind names the JSON type of a valid JSON value, for error messages.
func jsonKind(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
