// Package cache is a small cache, for the Code tests.
package cache

import "sync"

// Cache holds values under a lock.
type Cache struct {
	mu    sync.Mutex
	items map[string]string
}

// Get reads a value.
func (c *Cache) Get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[key]
	return v, ok
}

// Put writes a value.
func (c *Cache) Put(key, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[string]string{}
	}
	c.items[key] = value
}

func New() *Cache {
	return &Cache{}
}
