'use strict';
// Preloaded (`node -r`) into Manager's own server.js by stack-build.js: server.js listens on the
// fixed port 3000, which another checkout or program on a shared machine may hold. The first
// listen() binds a free port of 127.0.0.1 instead, and the port is printed on stderr as
// `server-port: <n>` once it listens, so the caller waits for that line, not for a time.
const net = require('node:net');

const listen = net.Server.prototype.listen;
let done = false;
net.Server.prototype.listen = function listenOnFreePort(...args) {
  if (done) return listen.apply(this, args);
  done = true;
  const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
  this.once('listening', () => process.stderr.write(`server-port: ${this.address().port}\n`));
  return listen.call(this, 0, '127.0.0.1', callback);
};
