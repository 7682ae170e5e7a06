/* runstats.h: PLACEHOLDER, being written this session. */
#ifndef KB_RUNSTATS_H
#define KB_RUNSTATS_H
#endif
