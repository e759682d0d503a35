// Package wire implements the transport-independent half of the Jupyter
// messaging protocol (version 5.3): connection files, message headers, HMAC
// signing with a constant-time check, and the multipart framing
// (identities, "<IDS|MSG>", signature, header, parent header, metadata,
// content, buffers) used on every ZeroMQ socket.
//
// It knows nothing about sockets or the interpreter, so it is tested alone.
package wire
