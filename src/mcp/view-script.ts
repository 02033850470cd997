// The script of every view (./views.ts), run by the agent host inside its sandboxed frame. It
// speaks the MCP Apps postMessage protocol (JSON-RPC 2.0 with the host, spec 2026-01-26) itself:
// the extension's App class brings 540 KB of dependencies to each view, this is 4 KB. The
// protocol's steps: ui/initialize, then ui/notifications/initialized; the host then sends the
// tool's result, whose _meta carries the view's HTML, rendered by the tool server. Buttons name
// a tool and its arguments (data-tool, data-args) or a link (data-open); their answers replace
// the view. Once its payment page is open, a checkout view polls get_checkout until it is paid.
// Plain ES2020 for any host's browser; no inline handler, no eval (the host's CSP allows neither).
export const VIEW_SCRIPT = `(() => {
  'use strict';
  const host = window.parent;
  const main = document.getElementById('view');
  const WORDS = JSON.parse(document.getElementById('words').textContent);
  let words = WORDS[document.documentElement.lang] || WORDS['en-CA'];
  let nextId = 1;
  const pending = new Map();

  const post = (message) => host.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  const notify = (method, params) => post({ method, params });

  /** The host's theme, colours and fonts (its style variables are the stylesheet's first choice). */
  function applyContext(context) {
    if (!context) return;
    const root = document.documentElement;
    if (context.theme === 'dark' || context.theme === 'light') {
      root.dataset.theme = context.theme;
      root.style.colorScheme = context.theme;
    }
    const variables = context.styles && context.styles.variables;
    if (variables) {
      for (const name of Object.keys(variables)) {
        if (name.startsWith('--') && typeof variables[name] === 'string') root.style.setProperty(name, variables[name]);
      }
    }
    const fonts = context.styles && context.styles.css && context.styles.css.fonts;
    if (typeof fonts === 'string' && !document.getElementById('host-fonts')) {
      const style = document.createElement('style');
      style.id = 'host-fonts';
      style.textContent = fonts;
      document.head.appendChild(style);
    }
    if (typeof context.locale === 'string') {
      const lang = context.locale.toLowerCase().startsWith('fr') ? 'fr-CA' : 'en-CA';
      words = WORDS[lang];
    }
  }

  const say = (text, kind) => {
    const p = document.createElement('p');
    p.className = kind || 'muted';
    if (kind === 'alert') p.setAttribute('role', 'alert');
    p.textContent = text;
    return p;
  };

  let polling;
  /** A tool's answer: its view (HTML of the tool server), else its error's words. */
  function show(result) {
    const html = result && result._meta && result._meta['portage/view'];
    if (typeof html === 'string') {
      main.innerHTML = html;
      return true;
    }
    let message = words.failed;
    if (result && result.isError && Array.isArray(result.content) && result.content[0]) {
      try {
        message = JSON.parse(result.content[0].text).error || message;
      } catch (_) {
        message = String(result.content[0].text || message);
      }
    }
    const status = main.querySelector('[data-status]') || main;
    if (status === main) main.textContent = '';
    status.replaceChildren(say(message, 'alert'));
    return false;
  }

  async function callTool(name, args) {
    try {
      return show(await request('tools/call', { name, arguments: args }));
    } catch (err) {
      show(null);
      return false;
    }
  }

  /**
   * Once the payment page is open: the session again every 3 seconds while the view still waits
   * for it ([data-poll]: a session ready for payment), until it ends (data-until, unix seconds).
   */
  function watch() {
    clearTimeout(polling);
    const tick = async () => {
      const waiting = main.querySelector('[data-poll]');
      if (!waiting || Date.now() / 1000 > Number(waiting.dataset.until)) return;
      await callTool(waiting.dataset.poll, JSON.parse(waiting.dataset.args));
      polling = setTimeout(tick, 3000);
    };
    polling = setTimeout(tick, 3000);
  }

  main.addEventListener('click', async (event) => {
    const button = event.target.closest('button[data-tool], button[data-open], a[data-open]');
    if (!button || button.disabled) return;
    event.preventDefault();
    if (button.dataset.open) {
      const opened = await request('ui/open-link', { url: button.dataset.open }).catch(() => ({ isError: true }));
      if (opened && opened.isError) window.open(button.dataset.open, '_blank', 'noopener');
      watch();
      return;
    }
    const args = JSON.parse(button.dataset.args);
    // data-pick: the checked radio of that name gives the argument (the variant picked).
    const picked = button.dataset.pick && main.querySelector('input[type=radio][name="' + button.dataset.pick + '"]:checked');
    if (picked) args[button.dataset.pick] = picked.value;
    // Only the buttons enabled now come back enabled (a new view's own stay as it drew them).
    const enabled = [...main.querySelectorAll('button')].filter((b) => !b.disabled);
    for (const b of enabled) b.disabled = true;
    if (button.dataset.then) {
      // A tool without a view of its own (add_to_cart): once it succeeds, the view of data-then.
      const answer = await request('tools/call', { name: button.dataset.tool, arguments: args }).catch(() => null);
      if (answer && !answer.isError) await callTool(button.dataset.then, {});
      else show(answer);
    } else {
      await callTool(button.dataset.tool, args);
    }
    for (const b of enabled) b.disabled = false;
  });

  window.addEventListener('message', (event) => {
    if (event.source !== host) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && pending.has(m.id)) {
      const waiter = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) waiter.reject(new Error(m.error.message));
      else waiter.resolve(m.result);
      return;
    }
    switch (m.method) {
      case 'ui/notifications/tool-result':
        show(m.params);
        break;
      case 'ui/notifications/tool-cancelled':
        main.replaceChildren(say(words.cancelled));
        break;
      case 'ui/notifications/host-context-changed':
        applyContext(m.params);
        break;
      case 'ui/resource-teardown':
        clearTimeout(polling);
        post({ id: m.id, result: {} });
        break;
      case 'ping':
        post({ id: m.id, result: {} });
        break;
      default:
        if (m.id !== undefined && m.method !== undefined) {
          post({ id: m.id, error: { code: -32601, message: 'Method not found: ' + m.method } });
        }
    }
  });

  // The frame's size, told to the host whenever it changes (the host sizes its frame to fit).
  let lastHeight = -1;
  const tellSize = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    notify('ui/notifications/size-changed', { width: Math.ceil(document.documentElement.scrollWidth), height });
  };

  request('ui/initialize', {
    protocolVersion: '2026-01-26',
    appInfo: { name: 'portage-views', version: '1.0.0' },
    appCapabilities: { availableDisplayModes: ['inline'] },
  }).then((answer) => {
    applyContext(answer && answer.hostContext);
    main.replaceChildren(say(words.loading));
    notify('ui/notifications/initialized', {});
    tellSize();
    new ResizeObserver(tellSize).observe(document.documentElement);
  });
})();`;
