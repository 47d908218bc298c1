/* SPDX-License-Identifier: MIT */
/* Userspace stand-in: <asm/pvsmm.h> is include/pvsmm/abi.h installed. */
#include "pvsmm/abi.h"
