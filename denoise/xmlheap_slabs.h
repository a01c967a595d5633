/* Slab allocator for libxml2's small blocks (denoise.xmlheap): see xmlheap_slabs.c. */
#ifndef DENOISE_XMLHEAP_SLABS_H
#define DENOISE_XMLHEAP_SLABS_H

#include <stddef.h>

/* Reserve the address range slabs are carved from; 0 on success (and when done before). */
int xmlheap_reserve(void);

/* libxml2's four memory functions (xmlMemSetup's arguments). */
void xmlheap_free(void *block);
void *xmlheap_malloc(size_t size);
void *xmlheap_realloc(void *block, size_t size);
char *xmlheap_strdup(const char *text);

/* Slabs carved so far, and slabs on the shared list of empty ones. */
void xmlheap_counts(size_t *carved, size_t *shared_free);

#endif
