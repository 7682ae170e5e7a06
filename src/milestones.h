/* milestones.h: PLACEHOLDER, being written this session. */
#ifndef KB_MILESTONES_H
#define KB_MILESTONES_H
#endif
