package visible

import (
	"testing"
	"unicode/utf8"
)

// TestDeceptive: every character the approval policy's issue found shown as
// if it were nothing or a plain space is deceptive; letters of any script,
// emoji, combining accents and the plain space are not.
func TestDeceptive(t *testing.T) {
	for _, r := range []rune{
		0x034F, 0xFE0F, 0xE0100, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x2800, 0x17B4, 0x2028, 0x2029, 0x3000,
		0x00A0, 0x2003, 0x200B, 0x200D, 0x202E, 0x2066, 0xFEFF, 0xE000, 0xE0041, 0x0000, 0x001B, '\n', '\t', 0x0085,
		0xFFFE, 0xFDD0, utf8.RuneError,
	} {
		if !Deceptive(r) {
			t.Errorf("%U is not deceptive", r)
		}
	}
	for _, r := range []rune{' ', 'a', 'Z', '7', '/', 'é', 'ж', '中', 'ㅎ', 0x1F600, 0x0301, '~'} {
		if Deceptive(r) {
			t.Errorf("%U is deceptive", r)
		}
	}
}

// TestEscape: what a person reads shows every deceptive character as an
// escape and every byte that is not UTF-8 as \xNN, and leaves plain text as
// it is.
func TestEscape(t *testing.T) {
	cases := map[string]string{
		"notes/x.txt":        "notes/x.txt",
		"notes\u3164/":       `notes\u3164/`,
		"a\u200bb":           `a\u200bb`,
		"tag\U000E0041":      `tag\U000e0041`,
		"line\nnext\tx\ry":   `line\nnext\tx\ry`,
		"esc\x1b[31m":        `esc\x1b[31m`,
		"bad\xffbyte":        `bad\xffbyte`,
		"café 中文 😀":          "café 中文 😀",
		"\u202eevil.txt":     `\u202eevil.txt`,
		"space\u00a0between": `space\u00a0between`,
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if In(in) != (in != want) {
			t.Errorf("In(%q) = %v", in, In(in))
		}
	}
}

// FuzzEscape: an escaped text never holds a deceptive character, and a text
// without one is left unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"notes/x", "a\u200bb", "\xff", "x\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if In(e) {
			t.Fatalf("Escape(%q) = %q still holds a deceptive character", s, e)
		}
		if !In(s) && e != s {
			t.Fatalf("Escape(%q) changed plain text to %q", s, e)
		}
	})
}
