// Live preview, shared part. Every preview tab of a browser connects to this one SharedWorker,
// which holds the only event stream: a browser opens at most 6 HTTP/1.1 connections to a host,
// so one stream per tab would leave a 7th tab unable to load anything and stop every update.
// Each tab gets every `build` event's data as a message, and the latest one when it connects.
"use strict";
var ports = [];
var last = null;
var events = new EventSource("/__sitegen__/events");

events.addEventListener("build", function (e) {
  last = e.data;
  ports.forEach(function (port) { port.postMessage(last); });
});

self.addEventListener("connect", function (e) {
  var port = e.ports[0];
  ports.push(port);
  port.onmessage = function (m) {
    if (m.data === "bye") { ports = ports.filter(function (p) { return p !== port; }); }
  };
  if (last !== null) { port.postMessage(last); }
});
