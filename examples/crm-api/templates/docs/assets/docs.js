/* rest-tool docs: the sidebar's service search and the Try-it forms. A plain script, no library, nothing fetched but
   the API a form calls: the pages work opened from disk (file://, where Try-it cannot run and says so) and served by
   the mock server at /docs/. Everything shown is set as text, never as HTML. */
/* global document, window, location, fetch, Headers, TextDecoder, AbortController, performance, setTimeout, clearTimeout, URL */
(() => {
  'use strict';

  /** Lower case, without accents: "Ünïcode" is found by "unicode". */
  const fold = (text) =>
    String(text)
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`;

  // ---- The sidebar: every service, filtered as you type ------------------------------------------------------

  const setUpSidebar = () => {
    const nav = document.querySelector('nav.sidebar');
    const services = window.restToolServices;
    if (!nav || !Array.isArray(services)) return;
    const root = nav.getAttribute('data-root') || '';
    const page = nav.getAttribute('data-page') || '';
    const list = nav.querySelector('.service-list');
    const search = nav.querySelector('input[type="search"]');
    const count = nav.querySelector('.service-count');
    const fallback = nav.querySelector('.sidebar-fallback');
    if (!list || !search || !count) return;

    const entries = services.map((service) => {
      const item = element('li');
      const link = element('a', 'service-link');
      link.href = root + service.href;
      link.append(element('span', 'service-name', service.name), element('code', 'service-url', service.url));
      const methods = element('span', 'service-methods');
      for (const method of service.methods || []) {
        methods.append(element('span', `method ${String(method).toLowerCase()}`, method), ' ');
      }
      link.append(methods);
      if (service.summary) link.title = service.summary;
      if (service.href === page) {
        link.setAttribute('aria-current', 'page');
        item.className = 'current';
      }
      item.append(link);
      list.append(item);
      return { item, link, text: fold([service.name, service.url, service.summary].join('\n')) };
    });

    const visibleLinks = () => entries.filter((entry) => !entry.item.hidden).map((entry) => entry.link);

    const filter = () => {
      const words = fold(search.value).split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const entry of entries) {
        const match = words.every((word) => entry.text.includes(word));
        entry.item.hidden = !match;
        if (match) shown++;
      }
      if (!words.length) count.textContent = plural(services.length, 'service');
      else if (!shown) count.textContent = `No service matches \u201c${search.value.trim()}\u201d`;
      else count.textContent = `${shown} of ${plural(services.length, 'service')}`;
    };

    search.addEventListener('input', filter);
    search.addEventListener('keydown', (event) => {
      const links = visibleLinks();
      if (event.key === 'ArrowDown' && links.length) {
        event.preventDefault();
        links[0].focus();
      } else if (event.key === 'Enter' && links.length) {
        event.preventDefault();
        links[0].click();
      } else if (event.key === 'Escape' && search.value) {
        event.preventDefault();
        search.value = '';
        filter();
      }
    });
    list.addEventListener('keydown', (event) => {
      const links = visibleLinks();
      const at = links.indexOf(document.activeElement);
      if (at === -1) return;
      if (event.key === 'ArrowDown' && at < links.length - 1) {
        event.preventDefault();
        links[at + 1].focus();
      } else if (event.key === 'ArrowUp' || event.key === 'Escape') {
        event.preventDefault();
        if (event.key === 'ArrowUp' && at > 0) links[at - 1].focus();
        else search.focus();
      }
    });
    // "/" anywhere but in a field goes to the search box, as on many documentation sites.
    document.addEventListener('keydown', (event) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName))) return;
      event.preventDefault();
      search.focus();
    });

    search.parentNode.hidden = false;
    if (fallback) fallback.hidden = true;
    filter();
    // The current service in view in the sidebar's own scroll, without scrolling the page.
    const current = list.querySelector('li.current');
    if (current && list.scrollHeight > list.clientHeight) {
      list.scrollTop = current.offsetTop - list.offsetTop - list.clientHeight / 3;
    }
  };

  // ---- Try it: a form per method that calls the API on this page's origin ------------------------------------

  /** Something filled in that cannot be sent: shown to the reader instead. */
  class Problem extends Error {}

  /** How long an answer may take; the mock server's X-Mock-Delay goes up to 30 s. */
  const TIMEOUT_MS = 60000;
  /** The most of a body shown. */
  const SHOWN_CHARS = 200000;
  /** The most events of a stream shown: older ones give way to newer ones. */
  const SHOWN_EVENTS = 100;

  const valueOf = (form, attribute, name) => {
    for (const field of form.querySelectorAll(`[${attribute}]`)) {
      if (field.getAttribute(attribute) === name) return field.value;
    }
    return '';
  };

  /** The path and query the form calls; `lenient` (the preview) leaves unfilled path parameters as `{name}`. */
  const requestPath = (form, lenient) => {
    const template = form.getAttribute('data-uri-template') || '';
    const path = template.replace(/\{([^}]*)\}/g, (whole, name) => {
      const value = valueOf(form, 'data-path-parameter', name);
      if (value !== '') return encodeURIComponent(value);
      if (lenient) return whole;
      throw new Problem(`Fill in the path parameter ${name}.`);
    });
    const query = [];
    for (const field of form.querySelectorAll('[data-query-parameter]')) {
      const name = field.getAttribute('data-query-parameter');
      if (field.value !== '') query.push(`${encodeURIComponent(name)}=${encodeURIComponent(field.value)}`);
      else if (field.required && !lenient) throw new Problem(`Fill in the query parameter ${name}.`);
    }
    return (form.getAttribute('data-prefix') || '') + path + (query.length ? `?${query.join('&')}` : '');
  };

  /** `Name: value` lines; blank lines, `#` comments and headers without a value are left out. */
  const requestHeaders = (form) => {
    const headers = new Headers();
    const field = form.querySelector('[data-headers]');
    (field ? field.value.split('\n') : []).forEach((line, index) => {
      const text = line.trim();
      if (!text || text.startsWith('#')) return;
      const colon = text.indexOf(':');
      if (colon <= 0) throw new Problem(`Header line ${index + 1} is not "Name: value": ${text}`);
      const name = text.slice(0, colon).trim();
      const value = text.slice(colon + 1).trim();
      if (!value) return;
      try {
        headers.append(name, value);
      } catch {
        throw new Problem(`Header line ${index + 1}: "${name}" cannot be sent as a header.`);
      }
    });
    return headers;
  };

  /** The body for people: pretty JSON where it is JSON, else the text as it came; `note` says what else it is. */
  const describeBody = (bytes, contentType) => {
    if (!bytes.byteLength) return { text: '', note: 'No body.' };
    let text;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return {
        text: '',
        note: `${plural(bytes.byteLength, 'byte')} that are not text${contentType ? ` (${contentType})` : ''}.`,
      };
    }
    const cut =
      text.length > SHOWN_CHARS ? `Only the first ${SHOWN_CHARS} of ${text.length} characters are shown.` : '';
    try {
      return { text: JSON.stringify(JSON.parse(text), null, 2).slice(0, SHOWN_CHARS), note: cut, json: true };
    } catch {
      const notJson = /\bjson\b/i.test(contentType) ? 'The body is not valid JSON. ' : '';
      return { text: text.slice(0, SHOWN_CHARS), note: `${notJson}${cut}`.trim() };
    }
  };

  /** The tokens of pretty-printed JSON: a string (a key when a colon follows), a number, a literal. */
  const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

  /** JSON.stringify's output into `parent`, coloured as the pages colour their examples; all of it as text. */
  const appendJson = (parent, text) => {
    let last = 0;
    for (const match of text.matchAll(JSON_TOKEN)) {
      const [whole, string, colon, number] = match;
      parent.append(text.slice(last, match.index));
      if (string !== undefined) {
        parent.append(element('span', colon ? 'j-key' : 'j-string', string));
        if (colon) parent.append(colon);
      } else parent.append(element('span', number !== undefined ? 'j-number' : 'j-literal', whole));
      last = match.index + whole.length;
    }
    parent.append(text.slice(last));
  };

  const show = (result, ...parts) => {
    result.replaceChildren(...parts);
    result.hidden = false;
  };

  const showProblem = (result, message) => {
    const problem = element('p', 'try-it-problem', message);
    problem.setAttribute('role', 'alert');
    show(result, problem);
  };

  /** The status line and the response headers of an answer. */
  const describeAnswer = (response, started, call) => {
    const status = element('p', 'try-it-status');
    status.append(
      element('span', `status s${String(response.status).charAt(0)}xx`, `${response.status} ${response.statusText}`),
      ` \u00b7 ${Math.round(performance.now() - started)} ms \u00b7 ${call}`,
    );
    const lines = [];
    response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
    const headers = element('details', 'try-it-headers');
    headers.append(
      element('summary', '', `Response headers (${lines.length})`),
      element('pre', 'example', lines.join('\n')),
    );
    return [status, headers];
  };

  const isEventStream = (response) =>
    /^text\/event-stream\b/i.test((response.headers.get('content-type') || '').trim());

  /** One Server-Sent Event from its lines: `id`, `event` (default `message`) and the `data` lines joined. */
  const parseEvent = (block) => {
    const fields = { data: [] };
    for (const line of block.split(/\r\n|\r|\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'data') fields.data.push(value);
      else if (name === 'id' || name === 'event') fields[name] = value;
    }
    if (!fields.data.length) return undefined;
    return { id: fields.id, event: fields.event || 'message', data: fields.data.join('\n') };
  };

  const clock = () => new Date().toTimeString().slice(0, 8);

  /** One event as a list item: when it came, its name and id, its data (pretty JSON where it is JSON). */
  const eventItem = (event) => {
    const item = element('li', 'try-it-event');
    const head = element('p', 'try-it-event-head');
    head.append(element('time', '', clock()), ' \u00b7 ', element('code', 'event-name', event.event));
    if (event.id !== undefined) head.append(' \u00b7 ', element('span', 'event-id', `id ${event.id}`));
    const pre = element('pre', 'example');
    const code = element('code');
    try {
      appendJson(code, JSON.stringify(JSON.parse(event.data), null, 2));
      pre.className = 'example json';
    } catch {
      code.textContent = event.data;
    }
    pre.append(code);
    item.append(head, pre);
    return item;
  };

  /**
   * Shows the events of a stream as they arrive, newest last, until the reader stops it, the server ends it or it
   * breaks; the form's Stop button stops it.
   */
  const watchEvents = async (form, response, abort, parts) => {
    const result = form.querySelector('[data-try-it-result]');
    const stop = form.querySelector('[data-try-it-stop]');
    const state = element('p', 'try-it-stream-state', 'Watching: no event yet.');
    state.setAttribute('aria-live', 'polite');
    const list = element('ol', 'try-it-events');
    show(result, ...parts, state, list);
    let count = 0;
    const onStop = () => abort.abort();
    if (stop) {
      stop.hidden = false;
      stop.addEventListener('click', onStop);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    let ending = 'The stream ended';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        const blocks = buffered.split(/\r\n\r\n|\n\n|\r\r/);
        buffered = blocks.pop();
        for (const block of blocks) {
          const event = parseEvent(block);
          if (!event) continue;
          count++;
          list.append(eventItem(event));
          if (list.children.length > SHOWN_EVENTS) list.firstElementChild.remove();
          state.textContent = `Watching: ${plural(count, 'event')}${count > SHOWN_EVENTS ? ` (the last ${SHOWN_EVENTS} shown)` : ''}.`;
        }
      }
    } catch (err) {
      ending = abort.signal.aborted ? 'Stopped' : `The stream broke off (${(err && err.message) || String(err)})`;
    } finally {
      if (stop) {
        stop.hidden = true;
        stop.removeEventListener('click', onStop);
      }
    }
    state.textContent = `${ending} after ${plural(count, 'event')}.`;
  };

  const send = async (form) => {
    const result = form.querySelector('[data-try-it-result]');
    const button = form.querySelector('button[type="submit"]');
    const method = form.getAttribute('data-method') || 'GET';
    let path;
    let url;
    // same-origin: the browser itself refuses to send it elsewhere, and to follow a redirect that leads elsewhere.
    const init = { method, credentials: 'same-origin', cache: 'no-store', mode: 'same-origin' };
    try {
      path = requestPath(form, false);
      // A template such as //host/x or /\host/x reads as another host: the form calls this site's API only.
      try {
        url = new URL(path, location.href);
      } catch {
        throw new Problem(`${path} is not a URL this page can call.`);
      }
      if (url.origin !== location.origin) {
        throw new Problem(`${path} is not on this site (${url.origin}): Try it calls this site's API only.`);
      }
      init.headers = requestHeaders(form);
      const body = form.querySelector('[data-body]');
      if (body && body.value !== '') init.body = body.value;
    } catch (err) {
      if (!(err instanceof Problem)) throw err;
      showProblem(result, err.message);
      return;
    }
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    show(result, element('p', 'try-it-sending', `Sending ${method} ${path} \u2026`));
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
    const started = performance.now();
    let response;
    try {
      response = await fetch(url, { ...init, signal: abort.signal });
      if (form.hasAttribute('data-stream') && response.ok && isEventStream(response)) {
        clearTimeout(timer);
        await watchEvents(form, response, abort, describeAnswer(response, started, `${method} ${path}`));
        return;
      }
      const bytes = await response.arrayBuffer();
      const body = describeBody(bytes, response.headers.get('content-type') || '');
      const parts = describeAnswer(response, started, `${method} ${path}`);
      if (body.note) parts.push(element('p', 'hint', body.note));
      if (body.text) {
        const pre = element('pre', `example try-it-body${body.json ? ' json' : ''}`);
        const code = element('code');
        if (body.json) appendJson(code, body.text);
        else code.textContent = body.text;
        pre.append(code);
        parts.push(pre);
      }
      show(result, ...parts);
    } catch (err) {
      const reason = abort.signal.aborted
        ? `no answer within ${TIMEOUT_MS / 1000} s`
        : (err && err.message) || String(err);
      showProblem(
        result,
        response
          ? `The answer (${response.status}) broke off: ${reason}`
          : `${method} ${path} got no answer: ${reason}. Is the mock server still running?`,
      );
    } finally {
      clearTimeout(timer);
      button.disabled = false;
      form.removeAttribute('aria-busy');
    }
  };

  const setUpTryIt = () => {
    // Opened from a file, there is no API to call: the forms stay hidden and the note saying so stays.
    if (location.protocol !== 'http:' && location.protocol !== 'https:') return;
    for (const form of document.querySelectorAll('form.try-it-form')) {
      const off = form.closest('.try-it')?.querySelector('.try-it-off');
      if (off) off.hidden = true;
      form.hidden = false;
      const url = form.querySelector('[data-try-it-url]');
      const update = () => {
        if (url) url.textContent = requestPath(form, true);
      };
      form.addEventListener('input', update);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        void send(form);
      });
      update();
    }
  };

  setUpSidebar();
  setUpTryIt();
})();
