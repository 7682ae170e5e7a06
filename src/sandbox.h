/* sandbox.h: PLACEHOLDER, being written this session. */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H
#endif
