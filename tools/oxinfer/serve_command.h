// `oxinfer serve ARGS...`: runs the HTTP server, oxinfer-server, installed
// beside the CLI (bin/oxinfer-server; in the build tree
// tools/server/oxinfer-server), with the same arguments.
#ifndef OXINFER_TOOLS_OXINFER_SERVE_COMMAND_H_
#define OXINFER_TOOLS_OXINFER_SERVE_COMMAND_H_

namespace oxinfer {

// Replaces this process with the server (argv[1] is "serve"); returns an
// exit status only when it cannot be started.
int ExecServer(int argc, char** argv);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_SERVE_COMMAND_H_
