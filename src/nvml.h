/* nvml.h: PLACEHOLDER, being written this session. */
#ifndef KB_NVML_H
#define KB_NVML_H
#endif
