// A shared object without the entry symbol.
extern "C" __attribute__((visibility("default"))) int not_an_oxinfer_plugin(void) { return 42; }
