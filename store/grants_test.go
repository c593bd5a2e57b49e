package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

func TestGrantsAddListRevoke(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	g, err := s.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: "g_1", ToolName: "write_file", Pattern: "notes/*", CreatedAt: t0})
	if err != nil || g.GrantID != "g_1" {
		t.Fatalf("add: %+v %v", g, err)
	}
	// The same grant again keeps the first one.
	g2, err := s.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: "g_2", ToolName: "write_file", Pattern: "notes/*", CreatedAt: t0.Add(time.Hour)})
	if err != nil || g2.GrantID != "g_1" || !g2.CreatedAt.Equal(t0.Truncate(time.Millisecond)) {
		t.Fatalf("add again: %+v %v", g2, err)
	}
	if _, err := s.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: "g_3", ToolName: "web_search", Pattern: "*", CreatedAt: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddGrant(ctx, "s_none", api.SessionGrant{GrantID: "g_4", ToolName: "web_search", Pattern: "*", CreatedAt: t0}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a grant on an unknown session: %v", err)
	}
	list, err := s.Grants(ctx, "s_1")
	if err != nil || len(list) != 2 || list[0].GrantID != "g_1" || list[1].Pattern != "*" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := s.RevokeGrant(ctx, "s_1", "g_1"); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeGrant(ctx, "s_1", "g_1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking twice: %v", err)
	}
	if err := s.DeleteSession(ctx, "s_1"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.Grants(ctx, "s_1"); len(list) != 0 {
		t.Fatalf("grants outlived their session: %+v", list)
	}
}
