#!/bin/sh
# The core library must not reference any allocator (README).
nm_bin=$1; lib=$2
bad=$("$nm_bin" -u "$lib" | awk '{print $NF}' | grep -E '^(malloc|calloc|realloc|free|reallocarray|strdup|strndup|aligned_alloc|posix_memalign|memalign|valloc|alloca)(@.*)?$')
if [ -n "$bad" ]; then
    echo "core library references allocation functions: $bad"
    exit 1
fi
echo "core library references no allocator: ok"
