package websearch

import (
	"container/list"
	"sync"
	"time"
)

// Default byte bounds of the answer caches (SearchOptions.CacheBytes and
// FetchOptions.CacheBytes). Together they hold at most 32 MiB: pages are the
// large answers (up to web.max_page_bytes of text each), while a search
// answer is a few kilobytes, so 4 MiB keeps about a thousand of them.
const (
	DefaultPageCacheBytes   = 28 << 20
	DefaultSearchCacheBytes = 4 << 20
)

// entryOverhead is what one entry costs beyond the bytes of its strings: the
// map slot, the list element, the entry struct and the string headers. An
// estimate, so a flood of tiny answers is bounded too.
const entryOverhead = 256

// A byteCache keeps answers for a fixed time, within a bound on the bytes
// they hold, evicting the least recently used first. It is hand-written
// because no LRU library is a dependency of this module (go.sum's
// hashicorp/golang-lru is only an indirect one, and it bounds entries by
// count, not by size) and the whole of it is a map and a list.
type byteCache[V any] struct {
	ttl      time.Duration
	maxBytes int64
	sizeOf   func(V) int64 // bytes the value holds, without the key or entryOverhead
	now      func() time.Time

	mu    sync.Mutex
	order *list.List // of *cacheEntry[V]; front is the most recently used
	byKey map[string]*list.Element
	bytes int64 // sum of the entries' sizes, at most maxBytes
}

type cacheEntry[V any] struct {
	key     string
	value   V
	size    int64
	expires time.Time
}

// newByteCache returns a cache that keeps each answer for ttl and holds at
// most maxBytes; a ttl or maxBytes of zero or less disables it.
func newByteCache[V any](ttl time.Duration, maxBytes int64, sizeOf func(V) int64, now func() time.Time) *byteCache[V] {
	return &byteCache[V]{ttl: ttl, maxBytes: maxBytes, sizeOf: sizeOf, now: now, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *byteCache[V]) enabled() bool { return c.ttl > 0 && c.maxBytes > 0 }

func (c *byteCache[V]) get(key string) (V, bool) {
	var zero V
	if !c.enabled() {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*cacheEntry[V])
	if !c.now().Before(e.expires) {
		c.remove(el)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// put stores v under key, evicting the least recently used answers until the
// bound holds. An answer larger than the whole bound is not kept, and evicts
// nothing: caching it would empty the cache for one entry.
func (c *byteCache[V]) put(key string, v V) {
	if !c.enabled() {
		return
	}
	size := int64(len(key)) + entryOverhead + c.sizeOf(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el) // the new answer replaces it, or supersedes it if too large
	}
	if size > c.maxBytes {
		return
	}
	e := &cacheEntry[V]{key: key, value: v, size: size, expires: c.now().Add(c.ttl)}
	c.byKey[key] = c.order.PushFront(e)
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

func (c *byteCache[V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry[V])
	delete(c.byKey, e.key)
	c.bytes -= e.size
}

// held is the sum of the sizes of the entries the cache holds (tests).
func (c *byteCache[V]) held() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}

// pageSize is the bytes a cached Page holds.
func pageSize(p Page) int64 {
	n := len(p.URL) + len(p.FinalURL) + len(p.Title) + len(p.Text) + len(p.ContentType)
	for _, s := range p.Notes {
		n += len(s) + 16
	}
	return int64(n)
}

// resultsSize is the bytes a cached search answer holds.
func resultsSize(r Results) int64 {
	n := len(r.Query) + len(r.Endpoint)
	for _, x := range r.Results {
		n += len(x.Title) + len(x.URL) + len(x.Snippet) + 48 // three string headers
	}
	return int64(n)
}
