// Another build of "test-cpu" (a user's, say): same name, other version. Found
// after the first it is shadowed; never used.
#include "tests/plugins/test_backend.h"

OXINFER_TEST_BACKEND("test-cpu", "9.9.9-user", OXI_DEVICE_CPU, OXI_BACKEND_COMPLETE, 99)
