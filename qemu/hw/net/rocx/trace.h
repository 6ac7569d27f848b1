#include "trace/trace-hw_net_rocx.h"
