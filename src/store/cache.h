/* cache.h - `lab cache`: list and prune $LAB_HOME's content-keyed caches. */
#ifndef LAB_CACHE_H
#define LAB_CACHE_H

int cmd_cache(int argc, char **argv);

#endif
