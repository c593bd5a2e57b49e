package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// multilingualInput is about 8 MB of the sanitizer's multilingual corpus
// (sanitize/testdata/multilingual), repeated.
func multilingualInput(tb testing.TB) []byte {
	files, err := filepath.Glob(filepath.Join("..", "..", "sanitize", "testdata", "multilingual", "*.txt"))
	if err != nil || len(files) < 10 {
		tb.Fatalf("multilingual corpus missing: %v, %d files", err, len(files))
	}
	var one bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		one.Write(data)
		one.WriteString("\n\n")
	}
	var b bytes.Buffer
	for b.Len() < 8<<20 {
		b.Write(one.Bytes())
	}
	return b.Bytes()
}

// BenchmarkSanitizeCommandInProcess runs `ai-server sanitize` in this process on
// 8 MB of multilingual text, with the text on a pipe-like reader.
func BenchmarkSanitizeCommandInProcess(b *testing.B) {
	input := multilingualInput(b)
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if code := runSanitize(nil, bytes.NewReader(input), io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit code %d", code)
		}
	}
}

// BenchmarkSanitizeCommand builds ai-server (as BenchmarkStartup does) and runs
// `ai-server sanitize < page.txt > /dev/null` on 8 MB of multilingual text: MB/s is
// the whole command, start-up and every layer with the classifier included.
func BenchmarkSanitizeCommand(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "ai-server")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("go build: %v", err)
	}
	page := filepath.Join(dir, "page.txt")
	input := multilingualInput(b)
	if err := os.WriteFile(page, input, 0o600); err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	for _, mode := range []struct {
		name string
		args []string
	}{{"default", nil}, {"no-classifier", []string{"--no-classifier"}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			for b.Loop() {
				in, err := os.Open(page)
				if err != nil {
					b.Fatal(err)
				}
				out, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(bin, append([]string{"sanitize"}, mode.args...)...)
				cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home)
				cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, os.Stderr
				err = cmd.Run()
				in.Close()
				out.Close()
				if err != nil {
					b.Fatalf("ai-server sanitize: %v", err)
				}
			}
		})
	}
}
