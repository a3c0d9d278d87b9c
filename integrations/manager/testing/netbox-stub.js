'use strict';
/**
 * A NetBox stub on 127.0.0.1: the virtual-machine endpoints Manager's NetBox utility uses
 * (look a VM up by name, delete it by ID), so the simulator can show which records Manager's
 * routes delete. `vms` holds the records; every request is logged.
 */

const http = require('node:http');

class NetboxStub {
  constructor() {
    this.vms = new Map(); // id -> { id, name, comments }
    this.nextId = 1;
    this.requests = [];
  }

  /** A VM record, e.g. one that another system made for a machine of the same name. */
  add(name, comments = '') {
    const vm = { id: this.nextId, name, comments };
    this.nextId += 1;
    this.vms.set(vm.id, vm);
    return vm;
  }

  names() {
    return [...this.vms.values()].map((vm) => vm.name).sort();
  }

  start() {
    this.server = http.createServer((req, res) => this.answer(req, res));
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        this.url = `http://127.0.0.1:${this.server.address().port}`;
        resolve(this);
      });
    });
  }

  stop() {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  answer(req, res) {
    const url = new URL(req.url, this.url);
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status, body) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    if (req.headers.authorization !== 'Token netbox-token') return send(403, { detail: 'Invalid token' });
    // A VM's interfaces (Manager's delete looks them up first): none in this stub.
    if (req.method === 'GET' && url.pathname === '/api/virtualization/interfaces/') return send(200, { count: 0, results: [] });
    const vmPath = /^\/api\/virtualization\/virtual-machines\/(?:(\d+)\/)?$/.exec(url.pathname);
    if (!vmPath) return send(404, { detail: 'Not found.' });
    if (req.method === 'GET' && !vmPath[1]) {
      const name = url.searchParams.get('name');
      const results = [...this.vms.values()].filter((vm) => vm.name === name);
      return send(200, { count: results.length, results: results.slice(0, Number(url.searchParams.get('limit') || 50)) });
    }
    if (req.method === 'DELETE' && vmPath[1]) {
      return this.vms.delete(Number(vmPath[1])) ? send(204) : send(404, { detail: 'Not found.' });
    }
    return send(405, { detail: 'Method not allowed' });
  }
}

module.exports = { NetboxStub };
