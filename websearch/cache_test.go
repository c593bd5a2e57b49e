package websearch

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stringCache is a byteCache of strings sized by their length.
func stringCache(maxBytes int64, clock *fakeClock) *byteCache[string] {
	return newByteCache(time.Minute, maxBytes, func(s string) int64 { return int64(len(s)) }, clock.Now)
}

// walk sums the entries' sizes from scratch, so the test does not only trust
// the running total, and lists their keys newest first.
func walk[V any](c *byteCache[V]) (keys []string, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry[V])
		keys = append(keys, e.key)
		bytes += e.size
	}
	return keys, bytes
}

func TestByteCacheStaysWithinItsBound(t *testing.T) {
	const bound = 20_000
	c := stringCache(bound, newFakeClock())
	var order []string
	sizes := map[string]int64{}
	for i := range 300 {
		key := "k" + strconv.Itoa(i)
		value := strings.Repeat("x", 100+(i*7919)%3000) // sizes vary, all under the bound
		c.put(key, value)
		order = append(order, key)
		sizes[key] = int64(len(key)) + entryOverhead + int64(len(value))

		keys, sum := walk(c)
		if _, held := c.held(); held != sum {
			t.Fatalf("after %d puts the running total says %d bytes, the entries hold %d", i+1, held, sum)
		}
		if sum > bound {
			t.Fatalf("after %d puts the cache holds %d bytes, over its bound of %d", i+1, sum, bound)
		}
		// Nothing was read, so least recently used is oldest: what is kept
		// must be the newest answers, as many as fit.
		var want []string
		var fit int64
		for j := len(order) - 1; j >= 0 && fit+sizes[order[j]] <= bound; j-- {
			fit += sizes[order[j]]
			want = append(want, order[j])
		}
		if strings.Join(keys, ",") != strings.Join(want, ",") {
			t.Fatalf("after %d puts the cache holds %v, want the newest that fit: %v", i+1, keys, want)
		}
	}
	for _, key := range order[len(order)-3:] {
		if _, ok := c.get(key); !ok {
			t.Errorf("newest entry %s was evicted", key)
		}
	}
	if _, ok := c.get(order[0]); ok {
		t.Error("the oldest entry is still there")
	}
}

func TestByteCacheEvictsLeastRecentlyUsed(t *testing.T) {
	per := int64(len("a")) + entryOverhead + 100
	c := stringCache(3*per, newFakeClock()) // room for three
	v := strings.Repeat("v", 100)
	c.put("a", v)
	c.put("b", v)
	c.put("c", v)
	if _, ok := c.get("a"); !ok { // a is now the most recently used
		t.Fatal("a missing before any eviction")
	}
	c.put("d", v)
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := c.get(key); ok != want {
			t.Errorf("%s cached = %v, want %v", key, ok, want)
		}
	}
}

func TestByteCacheSkipsAnAnswerLargerThanItsBound(t *testing.T) {
	c := stringCache(1000, newFakeClock())
	c.put("small", "s")
	c.put("huge", strings.Repeat("h", 1000))
	if _, ok := c.get("huge"); ok {
		t.Error("an answer larger than the bound was cached")
	}
	if _, ok := c.get("small"); !ok {
		t.Error("caching nothing evicted an answer that fit")
	}
	c.put("small", strings.Repeat("h", 1000))
	if got, ok := c.get("small"); ok {
		t.Errorf("a replaced key still answers the old value %q", got)
	}
	if n, held := c.held(); n != 0 || held != 0 {
		t.Errorf("cache holds %d entries of %d bytes, want none", n, held)
	}
}

func TestByteCacheReplacesAKey(t *testing.T) {
	c := stringCache(10_000, newFakeClock())
	c.put("k", "old")
	c.put("k", "newer")
	if got, _ := c.get("k"); got != "newer" {
		t.Errorf("get = %q, want the newer answer", got)
	}
	if n, held := c.held(); n != 1 || held != int64(len("k"))+entryOverhead+int64(len("newer")) {
		t.Errorf("cache holds %d entries of %d bytes, want one of the newer size", n, held)
	}
}

func TestByteCacheExpiresAndCanBeOff(t *testing.T) {
	clock := newFakeClock()
	c := stringCache(10_000, clock)
	c.put("k", "v")
	clock.mu.Lock()
	clock.now = clock.now.Add(time.Minute)
	clock.mu.Unlock()
	if _, ok := c.get("k"); ok {
		t.Error("an expired answer was returned")
	}
	if n, held := c.held(); n != 0 || held != 0 {
		t.Errorf("an expired answer still holds %d entries, %d bytes", n, held)
	}
	for name, off := range map[string]*byteCache[string]{
		"no bytes": newByteCache(time.Minute, -1, func(s string) int64 { return int64(len(s)) }, clock.Now),
		"no ttl":   newByteCache(-time.Minute, 1<<20, func(s string) int64 { return int64(len(s)) }, clock.Now),
	} {
		off.put("k", "v")
		if _, ok := off.get("k"); ok {
			t.Errorf("%s: a disabled cache answered", name)
		}
	}
}

func TestCacheDefaults(t *testing.T) {
	if got := NewFetcher(FetchOptions{}).cache.maxBytes; got != DefaultPageCacheBytes {
		t.Errorf("page cache bound %d, want %d", got, DefaultPageCacheBytes)
	}
	if got := NewSearcher(SearchOptions{}).cache.maxBytes; got != DefaultSearchCacheBytes {
		t.Errorf("search cache bound %d, want %d", got, DefaultSearchCacheBytes)
	}
	if DefaultPageCacheBytes+DefaultSearchCacheBytes != 32<<20 {
		t.Errorf("the caches' defaults add up to %d bytes, documented as 32 MiB", DefaultPageCacheBytes+DefaultSearchCacheBytes)
	}
}

// TestFetchCacheIsBoundedInBytes is the report that opened this: a few large
// pages used to fill memory, the cache being bounded only in entries.
func TestFetchCacheIsBoundedInBytes(t *testing.T) {
	const pageBytes, bound = 200_000, 1 << 20
	var hits atomic.Int32
	srv := pageServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Repeat(r.URL.Path+" words of text ", pageBytes/20))
	})
	f := NewFetcher(FetchOptions{AllowPrivate: true, CacheBytes: bound})
	ctx := context.Background()
	for i := range 12 {
		if _, err := f.Fetch(ctx, fmt.Sprintf("%s/p%02d", srv.URL, i)); err != nil {
			t.Fatal(err)
		}
		if _, held := f.cache.held(); held > bound {
			t.Fatalf("after %d pages the cache holds %d bytes, over its bound of %d", i+1, held, bound)
		}
	}
	if n, held := f.cache.held(); n < 2 || held < bound/2 {
		t.Errorf("the cache holds %d pages, %d bytes; it should use its room", n, held)
	}
	before := hits.Load()
	if _, err := f.Fetch(ctx, srv.URL+"/p11"); err != nil || hits.Load() != before {
		t.Errorf("the newest page was fetched again (err %v)", err)
	}
	if _, err := f.Fetch(ctx, srv.URL+"/p00"); err != nil || hits.Load() != before+1 {
		t.Errorf("the oldest page was not evicted (err %v)", err)
	}

	small := NewFetcher(FetchOptions{AllowPrivate: true, CacheBytes: pageBytes / 2})
	for range 2 {
		if _, err := small.Fetch(ctx, srv.URL+"/big"); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := small.cache.held(); n != 0 {
		t.Errorf("a page larger than the whole bound was cached")
	}
}

func TestSearchCacheIsBoundedInBytes(t *testing.T) {
	d := newDDGServer(t, map[string]canned{"/html/": {200, fixture(t, "html-caffeine-sleep.html")}})
	page, _ := parseHTMLPage(fixture(t, "html-caffeine-sleep.html"))
	one := resultsSize(Results{Query: "caffeine", Results: page[:5], Endpoint: "html"}) + entryOverhead + 64
	s := testSearcher(d, newFakeClock(), func(o *SearchOptions) { o.CacheBytes = one }) // room for one answer
	ctx := context.Background()
	for i, q := range []string{"caffeine", "caffeine", "sleep", "caffeine"} {
		if _, err := s.Search(ctx, q, 5); err != nil {
			t.Fatal(err)
		}
		if _, held := s.cache.held(); held > one {
			t.Fatalf("search %d: the cache holds %d bytes, over its bound of %d", i+1, held, one)
		}
	}
	// The second ask was a hit; "sleep" then evicted "caffeine".
	if got := d.count("/html/"); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
}

// BenchmarkByteCacheHit reads cached pages from a full default-size cache.
func BenchmarkByteCacheHit(b *testing.B) {
	c := newByteCache(time.Hour, DefaultPageCacheBytes, pageSize, time.Now)
	text := strings.Repeat("some words of a page ", 500) // ~10 KB
	keys := make([]string, 2000)
	for i := range keys {
		keys[i] = fmt.Sprintf("https://example.com/article/%d", i)
		c.put(keys[i], Page{URL: keys[i], FinalURL: keys[i], Title: "An article", Text: text})
	}
	n, held := c.held()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := c.get(keys[len(keys)-1-i%n]); !ok {
			b.Fatal("miss")
		}
		i++
	}
	// After the loop: its first call resets the timer, which drops metrics.
	b.ReportMetric(float64(n), "entries")
	b.ReportMetric(float64(held)/(1<<20), "MiB-held")
}

// BenchmarkFetchCacheHit is a read_webpage of a page already fetched: the
// URL checks and the cache lookup, no network.
func BenchmarkFetchCacheHit(b *testing.B) {
	srv := pageServer(b, serveBody("text/plain; charset=utf-8", []byte(strings.Repeat("cached page text ", 600))))
	f := NewFetcher(FetchOptions{AllowPrivate: true})
	u := srv.URL + "/page"
	if _, err := f.Fetch(context.Background(), u); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), u); err != nil {
			b.Fatal(err)
		}
	}
}
