/* A small buffer, for the Code tests. */
#include <stdlib.h>
#include <string.h>

struct buffer {
    char *data;
    size_t len;
};

static int *grow(struct buffer *b, size_t n)
{
    char *p = realloc(b->data, b->len + n);
    if (!p) {
        return NULL;
    }
    b->data = p;
    return (int *)p;
}

int append(struct buffer *b, const char *s)
{
    size_t n = strlen(s);
    if (!grow(b, n)) {
        return -1;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}
