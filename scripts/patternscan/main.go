// Command patternscan runs the sanitizer's pattern layers (aggressive mode, the
// classifier off) over files and lists those they flag, with the layers that
// fired and the first text they replaced: a check of the patterns on outside
// text, such as a machine's documentation.
//
//	go run ./scripts/patternscan /usr/share/doc/*/README* /usr/share/man/man1/*.gz
//
// Gzipped files are read unzipped; each file is read up to 2 MiB.
package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ailab/ai-lab/sanitize"
)

const maxRead = 2 << 20

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: patternscan FILE...: give the files to scan (gzipped ones are read unzipped)")
		os.Exit(2)
	}
	read, flagged := scan(os.Args[1:], os.Stdout, os.Stderr)
	fmt.Printf("%d files read, %d flagged by the patterns\n", read, flagged)
}

// scan writes a line to out for each file the patterns flag, says on errs which
// files it could not read, and returns how many it read and how many it flagged.
func scan(names []string, out, errs io.Writer) (read, flagged int) {
	for _, name := range names {
		text, err := readText(name)
		if err != nil {
			fmt.Fprintf(errs, "patternscan: %s: %v (skipped)\n", name, err)
			continue
		}
		read++
		cleaned, rep := sanitize.Sanitize(text, sanitize.Options{NoClassifier: true})
		if !rep.Flagged {
			continue
		}
		flagged++
		var layers []string
		for _, l := range []string{sanitize.LayerBreakout, sanitize.LayerInstructionPattern, sanitize.LayerRolePrefix} {
			if rep.Layers[l] > 0 {
				layers = append(layers, l)
			}
		}
		fmt.Fprintf(out, "%s\t%s\t%q\n", name, strings.Join(layers, ","), firstMarker(cleaned))
	}
	return read, flagged
}

func readText(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return "", err
		}
		r = z
	}
	b, err := io.ReadAll(io.LimitReader(r, maxRead))
	return string(b), err
}

// firstMarker returns the output around the first marker the layers left.
func firstMarker(out string) string {
	i := -1
	for _, m := range []string{"[filtered content]", "[instruction token removed]", "[role prefix removed]"} {
		if j := strings.Index(out, m); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 {
		return ""
	}
	from := max(0, i-60)
	for from > 0 && from < len(out) && out[from]&0xC0 == 0x80 {
		from--
	}
	to := min(len(out), i+60)
	for to < len(out) && out[to]&0xC0 == 0x80 {
		to++
	}
	return out[from:to]
}
