#ifndef TALKING_CLOCK_CSNDFILE_SHIM_H
#define TALKING_CLOCK_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
