package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
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

// argsObject parses raw as a JSON object of still-encoded values.
func argsObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	if !json.Valid(raw) {
		var obj map[string]json.RawMessage
		err := json.Unmarshal(raw, &obj)
		return nil, fmt.Errorf("arguments must be a JSON object: %s; send them again as one complete JSON object", strings.TrimPrefix(err.Error(), "json: "))
	}
	switch raw[0] {
	case '{':
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
				return argsObject(inner)
			}
		}
	}
	return nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(raw))
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
