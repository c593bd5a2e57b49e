package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
)

// FuzzGrantConfinement: for any path the model may write (blanks, dots,
// slashes, glob characters, Unicode, through the links of a workspace that
// has links leading in and out of the granted folder), a write the policy
// lets run under a grant for notes/ really lands in notes/: the tool is run,
// and the file holding its content is found by the operating system's own
// resolution under the granted folder, while the files outside keep theirs.
func FuzzGrantConfinement(f *testing.F) {
	for _, seed := range []string{
		"notes/x.txt", "notes/sub/y.txt", " notes/x.txt", "\u3000notes/x.txt", "notes/sub/ ",
		"*/todo.txt", "notes/*", `notes\/x.txt`, "notes/../victim.txt", "notes/link.txt",
		"notes/srclink/main.go", "notes/inside/k.txt", "notes/hard.txt", "notes/./a/../b.txt",
		"notes//x", "notes/loop/x", "./notes/x", "notes\u200b/x", "notes/dangling", "notes/inside/../../victim.txt",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	wsDir := filepath.Join(dir, "ws")
	ws, err := tools.OpenWorkspace(wsDir)
	if err != nil {
		f.Fatal(err)
	}
	defer ws.Close()
	mustFile := func(p, content string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	mustFile(filepath.Join(wsDir, "victim.txt"), "victim")
	mustFile(filepath.Join(wsDir, "src/main.go"), "main")
	mustFile(filepath.Join(wsDir, "notes/sub2/k.txt"), "k")
	outside := filepath.Join(dir, "outside.txt")
	mustFile(outside, "outside")
	for link, target := range map[string]string{
		"notes/link.txt": "../victim.txt", "notes/srclink": "../src", "notes/inside": "sub2",
		"notes/loop": "loop", "notes/dangling": "../newfile.txt", "notes/abs": outside,
	} {
		if err := os.Symlink(target, filepath.Join(wsDir, link)); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Link(outside, filepath.Join(wsDir, "notes/hard.txt")); err != nil {
		f.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.FileTools(ws)...)
	if err != nil {
		f.Fatal(err)
	}
	cfg := config.Default()
	cfg.Safety.Preset = tools.PresetModerate
	realWS, _ := filepath.EvalSymlinks(wsDir)
	granted := filepath.Join(realWS, "notes") + string(filepath.Separator)
	writeTool, _ := reg.Get(tools.WriteFile)
	n := 0
	f.Fuzz(func(t *testing.T, p string) {
		n++
		marker := fmt.Sprintf("marker-%d", n)
		args, _ := json.Marshal(map[string]string{"path": p, "content": marker})
		d := New(cfg, reg).Decide(Call{Name: tools.WriteFile, Args: args}, []api.SessionGrant{grant(tools.WriteFile, "notes/*")})
		if d.By != api.DecisionGrant {
			return
		}
		if _, err := writeTool.Run(context.Background(), args); err != nil {
			return // refused by the tool: nothing written anywhere
		}
		canon, err := ws.Canonical(p, true)
		if err != nil {
			t.Fatalf("%q ran under the grant, then cannot be resolved: %v", p, err)
		}
		host := filepath.Join(wsDir, filepath.FromSlash(canon))
		real, err := filepath.EvalSymlinks(host)
		if err != nil {
			t.Fatalf("%q ran under the grant; its file %s: %v", p, host, err)
		}
		if !strings.HasPrefix(real, granted) {
			t.Fatalf("%q ran under the grant for notes/ and wrote %s", p, real)
		}
		if b, _ := os.ReadFile(real); string(b) != marker {
			t.Fatalf("%q ran under the grant; the policy's path %s does not hold what the tool wrote (%q)", p, real, b)
		}
		for _, keep := range []struct{ path, content string }{{outside, "outside"}, {filepath.Join(wsDir, "victim.txt"), "victim"}, {filepath.Join(wsDir, "src/main.go"), "main"}} {
			if b, _ := os.ReadFile(keep.path); string(b) != keep.content {
				t.Fatalf("%q ran under the grant and changed %s", p, keep.path)
			}
		}
	})
}
