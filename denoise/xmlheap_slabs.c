/* Slab allocator for libxml2's small blocks (see denoise/xmlheap.py for why).
 *
 * Blocks of up to SMALL_MAX bytes are cut in order from 64 KiB slabs, each thread from a
 * slab of its own; larger ones go to the C library's malloc. A slab counts the blocks
 * cut from it and the blocks freed; once every block is freed it is empty and cut again
 * from its start. A parse cuts a tree's nodes one after the other, and freeing the tree
 * empties its slabs for the next page: a page's nodes sit together in memory that the
 * pages before it kept warm, however fragmented the C library's heap has become.
 *
 * Slabs are carved from one reserved address range (address space only: committed
 * COMMIT_SLABS at a time), so a block is ours when its address lies in that range, and
 * its slab's header is its address rounded down to SLAB_BYTES. Blocks made before the
 * allocator was installed lie outside it and go back to the C library.
 *
 * Threads. Only a slab's owner cuts blocks from it and counts its own frees without
 * atomics; a block freed by another thread is counted in an atomic counter the owner
 * reads, and the owner takes such a slab back when it next looks for an empty one. A
 * thread that ends hands its slabs over (orphans them) under the lock; a block freed into
 * an orphan is counted under the lock, which then gives the empty slab to every thread.
 */
#include "xmlheap_slabs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLAB_BYTES ((size_t)1 << 16)
#define SLAB_HEADER 64                   /* keeps blocks 16-byte aligned */
#define BLOCK_HEADER 16                  /* the block's size, for realloc */
#define SMALL_MAX 512                    /* larger blocks: the C library's malloc */
#define RESERVED_BYTES ((size_t)16 << 30)  /* address space, not memory */
#define COMMIT_SLABS 16
#define KEPT_EMPTY 64                    /* empty slabs a thread keeps (4 MiB) */
#define RECLAIM_SCAN 8                   /* retired slabs looked at per refill */

enum { CURRENT = 1, RETIRED, ORPHAN, EMPTY };

typedef struct slab {
    struct slab *prev, *next;  /* in its owner's retired list, or an empty list */
    _Atomic uint64_t owner;    /* the owning thread's serial; 0 for an orphan */
    uint64_t cut;              /* blocks cut (owner only) */
    uint64_t freed;            /* blocks freed by the owner */
    _Atomic uint64_t freed_elsewhere;  /* by other threads, or into an orphan */
    int state;
} slab;

_Static_assert(sizeof(slab) <= SLAB_HEADER, "a slab's header outgrew its room");

typedef struct heap {  /* one per thread */
    uint64_t serial;
    slab *current;
    char *next, *end;  /* the free part of the current slab */
    slab *empty;       /* singly linked */
    size_t n_empty;
    slab *retired;     /* doubly linked: slabs with blocks still in use */
} heap;

static __thread heap *this_heap;
static pthread_key_t heap_key;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *range_start, *range_end;  /* written once, before installation */
static char *uncarved, *committed;     /* under the lock */
static slab *shared_empty;             /* under the lock */
static size_t carved, n_shared_empty;  /* under the lock */
static _Atomic uint64_t serials;
static size_t page_bytes;

static inline int owns(const void *block) {
    return (const char *)block >= range_start && (const char *)block < range_end;
}

static inline slab *slab_of(const void *block) {
    return (slab *)((uintptr_t)block & ~(uintptr_t)(SLAB_BYTES - 1));
}

static inline int is_empty(slab *s) {
    return s->cut == s->freed + atomic_load_explicit(&s->freed_elsewhere, memory_order_acquire);
}

static inline void restart(slab *s) {
    s->cut = s->freed = 0;
    atomic_store_explicit(&s->freed_elsewhere, 0, memory_order_relaxed);
}

static void share_locked(slab *s) {
    s->state = EMPTY;
    s->next = shared_empty;
    shared_empty = s;
    n_shared_empty++;
}

static slab *take_shared(void) {
    slab *s = NULL;
    pthread_mutex_lock(&lock);
    if (shared_empty != NULL) {
        s = shared_empty;
        shared_empty = s->next;
        n_shared_empty--;
    } else if (uncarved + SLAB_BYTES <= range_end) {
        if (uncarved + SLAB_BYTES > committed) {
            size_t step = COMMIT_SLABS * SLAB_BYTES;
            if (committed + step > range_end)
                step = (size_t)(range_end - committed);
            if (mprotect(committed, step, PROT_READ | PROT_WRITE) == 0)
                committed += step;
        }
        if (uncarved + SLAB_BYTES <= committed) {
            s = (slab *)uncarved;
            uncarved += SLAB_BYTES;
            carved++;
        }
    }
    pthread_mutex_unlock(&lock);
    return s;
}

static void unlink_retired(heap *h, slab *s) {
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        h->retired = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
}

/* An empty slab of ``h``'s back to its empty list, or to every thread's (its pages
 * dropped) once the thread keeps enough. */
static void give_back(heap *h, slab *s) {
    if (h->n_empty < KEPT_EMPTY) {
        s->state = EMPTY;
        s->next = h->empty;
        h->empty = s;
        h->n_empty++;
        return;
    }
    if (page_bytes < SLAB_BYTES)  /* every page but the one holding the header */
        madvise((char *)s + page_bytes, SLAB_BYTES - page_bytes, MADV_DONTNEED);
    pthread_mutex_lock(&lock);
    share_locked(s);
    pthread_mutex_unlock(&lock);
}

/* A thread ends: its slabs become orphans, or every thread's when empty. */
static void drop_heap(void *arg) {
    heap *h = arg;
    slab *s, *next;
    pthread_mutex_lock(&lock);
    if (h->current != NULL) {
        h->current->state = RETIRED;
        h->current->next = h->retired;
        h->retired = h->current;
    }
    for (s = h->retired; s != NULL; s = next) {
        next = s->next;
        atomic_store(&s->owner, 0);  /* then read the counter: see xmlheap_free */
        s->freed_elsewhere += s->freed;
        s->freed = 0;
        if (is_empty(s))
            share_locked(s);
        else
            s->state = ORPHAN;
    }
    for (s = h->empty; s != NULL; s = next) {
        next = s->next;
        share_locked(s);
    }
    pthread_mutex_unlock(&lock);
    this_heap = NULL;
    free(h);
}

static heap *heap_here(void) {
    heap *h = this_heap;
    if (h != NULL)
        return h;
    h = calloc(1, sizeof *h);
    if (h == NULL)
        return NULL;
    h->serial = atomic_fetch_add(&serials, 1) + 1;
    if (pthread_setspecific(heap_key, h) != 0) {
        free(h);
        return NULL;
    }
    this_heap = h;
    return h;
}

/* A slab to cut from; 0 when there is none to be had (the caller uses malloc). */
static int refill(heap *h) {
    slab *s = h->current, *r;
    int looked = 0;
    if (s != NULL) {
        if (is_empty(s)) {  /* blocks too large for what is left go to malloc */
            restart(s);
            h->next = (char *)s + SLAB_HEADER;
            return 1;
        }
        s->state = RETIRED;
        s->prev = NULL;
        s->next = h->retired;
        if (h->retired != NULL)
            h->retired->prev = s;
        h->retired = s;
        h->current = NULL;
    }
    s = h->empty;
    if (s != NULL) {
        h->empty = s->next;
        h->n_empty--;
    } else {  /* a retired slab that other threads emptied */
        for (r = h->retired; r != NULL && looked < RECLAIM_SCAN; r = r->next, looked++) {
            if (is_empty(r)) {
                unlink_retired(h, r);
                s = r;
                break;
            }
        }
        if (s == NULL)
            s = take_shared();
    }
    if (s == NULL) {
        h->next = h->end = NULL;
        return 0;
    }
    restart(s);
    atomic_store_explicit(&s->owner, h->serial, memory_order_relaxed);
    s->state = CURRENT;
    h->current = s;
    h->next = (char *)s + SLAB_HEADER;
    h->end = (char *)s + SLAB_BYTES;
    return 1;
}

static void forked_prepare(void) { pthread_mutex_lock(&lock); }
static void forked_resume(void) { pthread_mutex_unlock(&lock); }

int xmlheap_reserve(void) {
    void *start;
    uintptr_t aligned;
    long page = sysconf(_SC_PAGESIZE);
    if (range_start != NULL)
        return 0;
    page_bytes = page > 0 ? (size_t)page : SLAB_BYTES;
    if (pthread_key_create(&heap_key, drop_heap) != 0)
        return -1;
    /* PROT_NONE: address space only, whatever the overcommit policy */
    start = mmap(NULL, RESERVED_BYTES + SLAB_BYTES, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (start == MAP_FAILED)
        return -1;
    if (pthread_atfork(forked_prepare, forked_resume, forked_resume) != 0) {
        munmap(start, RESERVED_BYTES + SLAB_BYTES);
        return -1;
    }
    aligned = ((uintptr_t)start + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1);
    uncarved = committed = (char *)aligned;
    range_end = (char *)aligned + RESERVED_BYTES;
    range_start = (char *)aligned;
    return 0;
}

void *xmlheap_malloc(size_t size) {
    heap *h;
    size_t need;
    char *block;
    if (size > SMALL_MAX || range_start == NULL || (h = heap_here()) == NULL)
        return malloc(size);
    need = BLOCK_HEADER + (size == 0 ? 16 : (size + 15) & ~(size_t)15);
    if ((size_t)(h->end - h->next) < need && !refill(h))
        return malloc(size);
    block = h->next;
    h->next += need;
    h->current->cut++;
    *(size_t *)block = need - BLOCK_HEADER;
    return block + BLOCK_HEADER;
}

void xmlheap_free(void *block) {
    slab *s;
    heap *h;
    if (block == NULL)
        return;
    if (!owns(block)) {
        free(block);
        return;
    }
    s = slab_of(block);
    h = this_heap;
    if (h != NULL && atomic_load_explicit(&s->owner, memory_order_relaxed) == h->serial) {
        s->freed++;
        if (!is_empty(s))
            return;
        if (s->state == RETIRED) {
            unlink_retired(h, s);
            give_back(h, s);
        } else if (s == h->current) {  /* cut again from the start */
            restart(s);
            h->next = (char *)s + SLAB_HEADER;
        }
        return;
    }
    /* another thread's slab, or an orphan's: the counter, then the owner (the thread
     * that orphans a slab writes the owner, then reads the counter: one of the two sees
     * the other's write, so an orphan's last block is never missed) */
    atomic_fetch_add(&s->freed_elsewhere, 1);
    if (atomic_load(&s->owner) == 0) {
        pthread_mutex_lock(&lock);
        if (s->state == ORPHAN && is_empty(s))
            share_locked(s);
        pthread_mutex_unlock(&lock);
    }
}

void *xmlheap_realloc(void *block, size_t size) {
    size_t held;
    void *moved;
    if (block == NULL)
        return xmlheap_malloc(size);
    if (!owns(block))
        return realloc(block, size);
    held = *(size_t *)((char *)block - BLOCK_HEADER);
    if (size <= held)
        return block;
    moved = xmlheap_malloc(size);
    if (moved == NULL)
        return NULL;
    memcpy(moved, block, held);
    xmlheap_free(block);
    return moved;
}

char *xmlheap_strdup(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = xmlheap_malloc(size);
    if (copy != NULL)
        memcpy(copy, text, size);
    return copy;
}

void xmlheap_counts(size_t *carved_out, size_t *shared_free_out) {
    pthread_mutex_lock(&lock);
    *carved_out = carved;
    *shared_free_out = n_shared_empty;
    pthread_mutex_unlock(&lock);
}
