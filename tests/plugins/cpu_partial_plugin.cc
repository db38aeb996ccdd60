// Claims device kind CPU without OXI_BACKEND_COMPLETE: loaded, never the
// fallback (a partial backend never replaces the CPU reference).
#include "tests/plugins/test_backend.h"

OXINFER_TEST_BACKEND("test-cpu-partial", "1.0.0", OXI_DEVICE_CPU, 0, 50)
