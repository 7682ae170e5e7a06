/* artifact.h: PLACEHOLDER, being written this session. */
#ifndef KB_ARTIFACT_H
#define KB_ARTIFACT_H
#endif
