// The turn console: lists recent turns from the mantlehooks Actuator endpoint and shows
// one turn's hook invocations as a waterfall, what each modify hook changed, its waiting
// approval and its transcript. Each turn shows its agent (the ChatClient's
// MantleHooks.agent name, "default" for a client that names none) and the sub-agents
// whose hooks ran in it, each hook row the agent it ran for, and the list filters by
// agent as by outcome. The list is polled for what changed since the last poll
// (changedSince) and merged into what the page has. A reply streamed in segments is one outgoing-text row with
// its segments below it and, when a segment was rejected, what the rejection retracted.
// The attempts of a retried model call are labelled; a row of the waterfall opens in full
// on click. Data is inserted with textContent only.
(function () {
  'use strict';
  const endpoint = document.body.dataset.endpoint;
  const rows = document.getElementById('turns');
  const filter = document.getElementById('outcome-filter');
  const agentFilter = document.getElementById('agent-filter');
  // every agent the application has hooks for (the endpoint names them, with or without
  // turns) and every agent seen since the page loaded: the filter keeps its choices when
  // an agent's turns leave the list (the recorder keeps only the latest turns)
  const agents = new Set();
  const status = document.getElementById('status');
  // the turns listed, by id, and the list's version they are as of: each poll asks only
  // for what changed since
  const listed = new Map();
  let version = null;
  let polls = Promise.resolve();
  let selected = null;
  let canDecide = false;
  let decisionsOff = null;

  // Why the page shows no Approve / Deny buttons, by the endpoint's decisionsOff.
  const DECISIONS_OFF = {
    endpoint_read_only: 'Decisions are off: the mantlehooks endpoint is read-only. To approve or deny here, set ' +
      'management.endpoint.mantlehooks.access=unrestricted, and protect the endpoint (see docs/console.md, "Decisions").',
    no_resumer: 'Define an ApprovalResumer bean to approve from here.'
  };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  // Spring Security's CSRF token, when the application has its protection on: the token
  // as the request handler rendered it into the page (what the default handler expects),
  // or, for applications that keep it in a readable XSRF-TOKEN cookie, the cookie's raw
  // value (what csrf.spa() expects). The cookie goes first; a POST refused for its token
  // ran nothing, so the page's token is tried once after it.
  function csrfCandidates() {
    const header = document.body.dataset.csrfHeader;
    if (!header) {
      return [{}];
    }
    const cookie = header.toUpperCase() === 'X-XSRF-TOKEN' ? readCookie('XSRF-TOKEN') : null;
    const page = { [header]: document.body.dataset.csrfToken };
    return cookie ? [{ [header]: cookie }, page] : [page];
  }

  function readCookie(name) {
    const prefix = name + '=';
    const found = document.cookie.split(';').map((part) => part.trim()).find((part) => part.startsWith(prefix));
    return found ? decodeURIComponent(found.substring(prefix.length)) : null;
  }

  async function getJson(url) {
    const response = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (response.status === 404) {
      throw new Error('Not found: expose the endpoint (management.endpoints.web.exposure.include=mantlehooks) ' +
        'and enable the console (mantle.hooks.console.enabled=true).');
    }
    if (!response.ok) {
      const error = new Error('The endpoint answered ' + response.status + '.');
      error.status = response.status;
      throw error;
    }
    return response.json();
  }

  // One poll at a time, in order: an answer merged after a later one would bring back
  // older states of its turns. (A poll never fails: it says what went wrong in the
  // status line.)
  function loadTurns() {
    polls = polls.then(poll);
    return polls;
  }

  // The whole list, as when the page loads.
  function reloadTurns() {
    polls = polls.then(() => {
      version = null;
      return poll();
    });
    return polls;
  }

  async function poll() {
    try {
      const data = await getJson(endpoint + '/turns' +
        (version !== null ? '?changedSince=' + encodeURIComponent(version) : ''));
      canDecide = data.canDecide;
      decisionsOff = data.decisionsOff || null;
      addAgents(data.agents || []);
      const changed = merge(data);
      version = data.version;
      if (changed) {
        renderTurns();
      }
      status.textContent = listed.size + ' turns' + (data.includeText ? '' : ' · texts hidden') +
        (decisionsOff === 'endpoint_read_only' ? ' · read-only' : '');
    } catch (e) {
      // a version the endpoint does not take (it was upgraded, say): the whole list next
      if (e.status === 400) {
        version = null;
      }
      status.textContent = e.message;
    }
  }

  // Merge an answer into the turns listed: the whole list replaces them; changes replace
  // the turns they hold (a running turn that finished, a late observer's row) and drop
  // the turns that left the list. Returns whether anything is to be drawn anew.
  function merge(data) {
    if (data.complete) {
      listed.clear();
    }
    (data.removed || []).forEach((id) => listed.delete(id));
    data.turns.forEach((turn) => listed.set(turn.id, turn));
    return data.complete || data.turns.length > 0 || (data.removed || []).length > 0;
  }

  // The turns listed, newest first.
  function listedTurns() {
    return Array.from(listed.values()).sort((a, b) => Date.parse(b.start) - Date.parse(a.start) ||
      (b.id > a.id) - (b.id < a.id));
  }

  function renderTurns() {
    const turns = listedTurns();
    addAgents(turns.map((turn) => turn.agent));
    const wanted = filter.value;
    const agent = agentFilter.value;
    rows.replaceChildren();
    const shown = turns.filter((turn) => (!wanted || turn.outcome === wanted) && (!agent || ranFor(turn, agent)));
    const empty = document.getElementById('empty');
    empty.hidden = shown.length > 0;
    empty.textContent = turns.length > 0 ? 'No turns match the filters.' : 'No turns recorded yet.';
    shown.forEach((turn) => {
      const row = el('tr');
      row.dataset.turnId = turn.id;
      row.dataset.outcome = turn.outcome;
      row.dataset.agent = turn.agent;
      if (turn.id === selected) {
        row.classList.add('selected');
      }
      row.appendChild(el('td', 'time', new Date(turn.start).toLocaleTimeString([], { hour12: false })));
      row.appendChild(conversation(turn));
      row.appendChild(agentCell(turn));
      row.appendChild(el('td', 'sender', turn.senderId));
      row.appendChild(el('td', null, turn.channel));
      const outcome = el('td');
      outcome.appendChild(el('span', 'badge ' + turn.outcome, turn.outcome));
      row.appendChild(outcome);
      row.appendChild(el('td', null, turn.durationMs.toFixed(1)));
      row.appendChild(el('td', null, String(invocations(turn.hooks))));
      row.addEventListener('click', () => select(turn.id));
      rows.appendChild(row);
    });
  }

  // The agent filter's choices: "all", then every agent known, sorted; the choice made
  // stays selected.
  function addAgents(names) {
    const before = agents.size;
    names.forEach((name) => agents.add(name));
    if (agents.size === before) {
      return;
    }
    const chosen = agentFilter.value;
    const options = [el('option', null, 'all')];
    options[0].value = '';
    Array.from(agents).sort().forEach((name) => options.push(el('option', null, name)));
    agentFilter.replaceChildren(...options);
    agentFilter.value = chosen;
  }

  // The agents whose hooks ran in a turn: its own, then any sub-agent's (a ChatClient of
  // another agent called from a tool runs that agent's hooks within the turn).
  function subAgents(turn) {
    return Array.from(new Set(turn.hooks.map((hook) => hook.agent)))
      .filter((name) => name && name !== turn.agent).sort();
  }

  function ranFor(turn, agent) {
    return turn.agent === agent || subAgents(turn).includes(agent);
  }

  function agentCell(turn) {
    const cell = el('td', 'agent');
    cell.appendChild(el('span', 'turn-agent', turn.agent));
    const others = subAgents(turn);
    if (others.length > 0) {
      const also = el('span', 'sub-agents', 'also ' + others.join(', '));
      also.title = 'hooks of these agents ran within the turn too (a sub-agent called from a tool)';
      cell.appendChild(also);
    }
    return cell;
  }

  // What tells turns apart: the conversation and, when the console includes texts, the
  // first words of the user's message (the endpoint sends none without texts).
  function conversation(turn) {
    const cell = el('td', 'conversation');
    cell.appendChild(el('span', 'conversation-id', turn.conversationId));
    if (turn.messagePreview) {
      const message = el('span', 'message', turn.messagePreview);
      message.title = turn.messagePreview;
      cell.appendChild(message);
    }
    return cell;
  }

  // Hook invocations, counting each invocation of a segmented reply's row.
  function invocations(hooks) {
    return hooks.reduce((count, hook) => count + (hook.segments ? hook.segments.invocations.length : 1), 0);
  }

  async function select(id) {
    selected = id;
    // a link to this turn: /mantle-console#turn=<id> (replacing the fragment fires no
    // hashchange)
    history.replaceState(null, '', '#turn=' + encodeURIComponent(id));
    rows.querySelectorAll('tr').forEach((row) => row.classList.toggle('selected', row.dataset.turnId === id));
    try {
      const detail = await getJson(endpoint + '/turns/' + encodeURIComponent(id));
      // another turn was chosen while this one loaded: that one is shown
      if (selected === id) {
        renderDetail(detail);
      }
    } catch (e) {
      status.textContent = e.message;
    }
  }

  // The turn a #turn=<id> link names: when the page loads and whenever the fragment
  // changes in an open tab (a link followed, Back and Forward).
  function selectFromLink() {
    if (!location.hash.startsWith('#turn=')) {
      return;
    }
    let id;
    try {
      id = decodeURIComponent(location.hash.substring('#turn='.length));
    } catch (e) {
      status.textContent = 'The link names no turn: ' + location.hash;
      return;
    }
    if (id && id !== selected) {
      select(id);
    }
  }

  function renderDetail(detail) {
    const turn = detail.turn;
    document.getElementById('turn-detail').hidden = false;
    document.getElementById('detail-title').textContent = 'Turn ' + turn.id;
    document.getElementById('detail-summary').textContent = turn.outcome + ' · ' + turn.durationMs.toFixed(1) +
      ' ms · agent ' + turn.agent + ' · sender ' + turn.senderId + ' · channel ' + turn.channel + ' · conversation ' + turn.conversationId;
    document.getElementById('hook-detail').hidden = true;
    renderWaterfall(turn);
    renderDiffs(turn.hooks);
    renderApproval(detail.approval);
    renderTranscript(detail.transcript);
  }

  function renderWaterfall(turn) {
    const waterfall = document.getElementById('waterfall');
    waterfall.replaceChildren();
    const end = Math.max(turn.durationMs, ...turn.hooks.map(endOf), 0.001);
    // when hooks of more than one agent ran (a sub-agent's within the turn), each row
    // names its agent; otherwise they are all the turn's, as the summary says
    const named = subAgents(turn).length > 0;
    [['modify', 'Modify hooks (the turn waits for each)'],
      ['observe', 'Observers (off the critical path)']].forEach(([lane, title]) => {
      const hooks = turn.hooks.filter((hook) => hook.lane === lane);
      if (hooks.length === 0) {
        return;
      }
      const group = el('div', 'group lane-group-' + lane);
      group.appendChild(el('h4', null, title));
      hooks.forEach((hook) => {
        if (hook.segments) {
          renderSegmented(group, hook, end, named);
          return;
        }
        const row = waterfallRow(hook, named);
        const track = el('div', 'track');
        const bar = el('div', 'bar lane-' + lane + ' outcome-' + hook.outcome);
        bar.dataset.point = hook.point;
        bar.dataset.hook = hook.hook;
        bar.dataset.outcome = hook.outcome;
        bar.dataset.lane = lane;
        if (hook.attempt) {
          bar.dataset.attempt = String(hook.attempt);
        }
        bar.style.left = (100 * hook.startMs / end) + '%';
        bar.style.width = Math.max(0.5, 100 * hook.durationMs / end) + '%';
        bar.title = hook.hook + ' at ' + hook.point + attemptText(hook, ' (', ')') + ' for agent ' + hook.agent +
          ': ' + hook.outcome +
          ', started at ' + hook.startMs.toFixed(2) + ' ms, took ' + hook.durationMs.toFixed(2) + ' ms' +
          queuedText(hook);
        if (hook.queuedMs > 0) {
          // the part of the bar the hook waited for a thread: the machine's time
          const queued = el('div', 'queued');
          queued.style.width = Math.min(100, 100 * hook.queuedMs / Math.max(hook.durationMs, 0.001)) + '%';
          bar.appendChild(queued);
        }
        track.appendChild(bar);
        track.appendChild(timing(hook.outcome + ' · ' + hook.durationMs.toFixed(1) + ' ms',
          hook.startMs, hook.startMs + hook.durationMs, end));
        row.appendChild(track);
        group.appendChild(row);
      });
      waterfall.appendChild(group);
    });
    placeTimings(waterfall);
  }

  // ", of which 3.20 ms waiting for a thread" when the hook waited to start; '' otherwise.
  function queuedText(hook) {
    return hook.queuedMs > 0 ? ', of which ' + hook.queuedMs.toFixed(2) + ' ms waiting for a thread' : '';
  }

  // "attempt 2" for a row of a retried model call, with what goes around it; '' for others.
  function attemptText(hook, before, after) {
    return hook.attempt ? before + 'attempt ' + hook.attempt + after : '';
  }

  // A waterfall row with its name: point and hook, cut to the column with the whole name
  // on hover, and in full (with the row's numbers) below the waterfall on click. The
  // attempt of a retried model call, and the agent when the row names it, stay visible
  // when the name is cut.
  function waterfallRow(hook, named) {
    const row = el('div', 'row');
    row.dataset.point = hook.point;
    row.dataset.hook = hook.hook;
    row.dataset.agent = hook.agent;
    const name = hook.point + ' · ' + hook.hook;
    const label = el('span', 'label');
    label.title = name + attemptText(hook, ' · ', '') + (named ? ' · agent ' + hook.agent : '');
    label.appendChild(el('span', 'name', name));
    if (hook.attempt) {
      const attempt = el('span', 'attempt', 'attempt ' + hook.attempt);
      attempt.dataset.attempt = String(hook.attempt);
      label.appendChild(attempt);
    }
    if (named) {
      label.appendChild(el('span', 'agent', hook.agent));
    }
    row.appendChild(label);
    row.addEventListener('click', () => showHook(hook));
    return row;
  }

  // One row in full: the whole hook name the waterfall cuts, and its numbers.
  function showHook(hook) {
    const box = document.getElementById('hook-detail');
    box.replaceChildren();
    box.dataset.hook = hook.hook;
    box.dataset.point = hook.point;
    box.appendChild(el('h4', 'hook-name', hook.hook));
    const facts = [['point', hook.point], ['lane', hook.lane], ['agent', hook.agent], ['outcome', hook.outcome]];
    if (hook.attempt) {
      facts.push(['attempt', String(hook.attempt)]);
    }
    if (hook.segments) {
      facts.push(['segments', String(hook.segments.count)]);
    }
    facts.push(['started', hook.startMs.toFixed(2) + ' ms'], ['took', hook.durationMs.toFixed(2) + ' ms'],
      ['waited for a thread', hook.queuedMs.toFixed(2) + ' ms']);
    const list = el('dl');
    facts.forEach(([name, value]) => {
      list.appendChild(el('dt', null, name));
      list.appendChild(el('dd', null, value));
    });
    box.appendChild(list);
    box.hidden = false;
  }

  // Where a row's bar ends: a segmented reply's row spans its first to its last invocation.
  function endOf(hook) {
    if (!hook.segments) {
      return hook.startMs + hook.durationMs;
    }
    return Math.max(...hook.segments.invocations.map((invocation) => invocation.startMs + invocation.durationMs));
  }

  // A bar's timing; where it goes is measured once the rows are drawn (placeTimings).
  function timing(text, startMs, endMs, end) {
    const node = el('span', 'timing', text);
    node.dataset.start = String(100 * startMs / end);
    node.dataset.end = String(100 * endMs / end);
    return node;
  }

  // Each timing goes where its text fits inside its track: after the bar, else before it,
  // else over the track's start. It never runs over the row's name (placed by percent,
  // a timing left of a bar ran over the name when the bar started closer to it than the
  // text is wide) nor past the track's end. Measured in pixels, so it is done again when
  // the window is resized.
  function placeTimings(waterfall) {
    waterfall.querySelectorAll('.track').forEach((track) => {
      const node = track.querySelector(':scope > .timing');
      if (!node) {
        return;
      }
      node.classList.remove('inside');
      node.style.left = '';
      node.style.right = '';
      const width = track.clientWidth;
      const text = node.offsetWidth;
      const start = width * parseFloat(node.dataset.start) / 100;
      const end = width * parseFloat(node.dataset.end) / 100;
      if (end + text <= width) {
        node.style.left = end + 'px';
        node.dataset.place = 'after';
      } else if (text <= start) {
        node.style.right = (width - start) + 'px';
        node.dataset.place = 'before';
      } else {
        node.classList.add('inside');
        node.style.left = '0px';
        node.dataset.place = 'inside';
      }
    });
  }

  // A reply streamed in segments: one row (a faint bar from its first to its last
  // invocation, each invocation a mark on it; the count, the worst outcome and the total
  // time beside it), the invocations in a table below, and, when a segment was rejected,
  // what the rejection's reply replaced.
  function renderSegmented(group, hook, end, named) {
    const segments = hook.segments;
    const row = waterfallRow(hook, named);
    row.classList.add('segmented');
    row.dataset.segments = String(segments.count);
    const track = el('div', 'track');
    const bar = el('div', 'bar segmented lane-modify outcome-' + hook.outcome);
    bar.dataset.point = hook.point;
    bar.dataset.hook = hook.hook;
    bar.dataset.outcome = hook.outcome;
    bar.dataset.lane = hook.lane;
    bar.dataset.segments = String(segments.count);
    bar.style.left = (100 * hook.startMs / end) + '%';
    bar.style.width = Math.max(0.5, 100 * (endOf(hook) - hook.startMs) / end) + '%';
    bar.title = hook.hook + ' at ' + hook.point + ': ' + plural(segments.count, 'segment') + ', ' + hook.outcome +
      ', started at ' + hook.startMs.toFixed(2) + ' ms, took ' + hook.durationMs.toFixed(2) + ' ms in all';
    track.appendChild(bar);
    segments.invocations.forEach((invocation) => {
      const mark = el('div', 'segment-bar outcome-' + invocation.outcome);
      mark.dataset.segment = String(invocation.segment);
      mark.dataset.hook = invocation.hook;
      mark.dataset.outcome = invocation.outcome;
      mark.style.left = (100 * invocation.startMs / end) + '%';
      mark.style.width = Math.max(0.2, 100 * invocation.durationMs / end) + '%';
      mark.title = 'segment ' + invocation.segment + (invocation.finalSegment ? ' (final)' : '') + ' · ' +
        invocation.hook + ': ' + invocation.outcome + ', took ' + invocation.durationMs.toFixed(2) + ' ms';
      track.appendChild(mark);
    });
    track.appendChild(timing(plural(segments.count, 'segment') + ' · ' + hook.outcome + ' · ' +
      hook.durationMs.toFixed(1) + ' ms in all', hook.startMs, endOf(hook), end));
    row.appendChild(track);
    group.appendChild(row);
    group.appendChild(segmentTable(hook));
    if (segments.rejectedSegment !== null && segments.rejectedSegment !== undefined) {
      group.appendChild(retracted(hook));
    }
  }

  function plural(count, noun) {
    return count + ' ' + noun + (count === 1 ? '' : 's');
  }

  function segmentTable(hook) {
    const details = el('details', 'segments');
    details.dataset.hook = hook.hook;
    details.appendChild(el('summary', null, plural(hook.segments.count, 'segment') + ' · ' +
      plural(hook.segments.invocations.length, 'invocation') + ' · ' + hook.outcome + ' · ' +
      hook.durationMs.toFixed(1) + ' ms in all'));
    const table = el('table');
    const head = el('tr');
    ['segment', 'hook', 'outcome', 'started (ms)', 'took (ms)'].forEach((name) => head.appendChild(el('th', null, name)));
    table.appendChild(head);
    hook.segments.invocations.forEach((invocation) => {
      const row = el('tr', 'outcome-' + invocation.outcome);
      row.dataset.segment = String(invocation.segment);
      row.dataset.outcome = invocation.outcome;
      row.appendChild(el('td', null, invocation.segment + (invocation.finalSegment ? ' (final)' : '')));
      row.appendChild(el('td', null, invocation.hook));
      row.appendChild(el('td', null, invocation.outcome));
      row.appendChild(el('td', null, invocation.startMs.toFixed(2)));
      row.appendChild(el('td', null, invocation.durationMs.toFixed(2)));
      table.appendChild(row);
    });
    details.appendChild(table);
    return details;
  }

  // The rejection ended the reply: the user's client replaced what it had shown (the
  // segments before the rejected one) with the rejection's reply. The text is there only
  // when the console includes texts.
  function retracted(hook) {
    const segments = hook.segments;
    const box = el('div', 'retracted');
    box.dataset.hook = hook.hook;
    box.dataset.segment = String(segments.rejectedSegment);
    box.appendChild(el('p', null, 'Segment ' + segments.rejectedSegment + ' was rejected: the reply ended and ' +
      'its rejection reply replaced what the user had been shown (' +
      plural(segments.rejectedSegment, 'segment') + '), retracted:'));
    let text;
    if (segments.retracted === null || segments.retracted === undefined) {
      text = el('p', 'hidden-text', '[text hidden]');
    } else if (segments.retracted === '') {
      text = el('p', 'hidden-text', '(nothing had been shown)');
    } else {
      text = el('pre', 'retracted-text', segments.retracted);
    }
    box.appendChild(text);
    return box;
  }

  function renderDiffs(hooks) {
    const diffs = document.getElementById('diffs');
    diffs.replaceChildren();
    // a segmented reply's invocations each have their own texts
    const flat = hooks.flatMap((hook) => hook.segments
      ? hook.segments.invocations.map((invocation) => Object.assign({ point: hook.point }, invocation))
      : [hook]);
    const changed = flat.filter((hook) => hook.before !== null && hook.after !== null && hook.before !== hook.after);
    document.getElementById('diff-title').hidden = changed.length === 0;
    changed.forEach((hook) => {
      const box = el('div', 'diff');
      box.dataset.hook = hook.hook;
      const segment = hook.segment !== undefined ? ' · segment ' + hook.segment : '';
      if (segment) {
        box.dataset.segment = String(hook.segment);
      }
      if (hook.attempt) {
        box.dataset.attempt = String(hook.attempt);
      }
      box.appendChild(el('h4', null, hook.point + ' · ' + hook.hook + segment + attemptText(hook, ' · ', '')));
      const table = el('table');
      const head = el('tr');
      head.appendChild(el('th', null, 'before'));
      head.appendChild(el('th', null, 'after'));
      table.appendChild(head);
      diffLines(hook.before.split('\n'), hook.after.split('\n')).forEach(([left, right]) => {
        const row = el('tr');
        row.appendChild(el('td', left !== null && left !== right ? 'removed' : null, left));
        row.appendChild(el('td', right !== null && left !== right ? 'added' : null, right));
        table.appendChild(row);
      });
      box.appendChild(table);
      diffs.appendChild(box);
    });
  }

  // Pairs the lines of two texts: common lines side by side, changes next to each other.
  function diffLines(a, b) {
    const n = a.length;
    const m = b.length;
    const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    const pairs = [];
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) {
        pairs.push([a[i++], b[j++]]);
      } else if (i < n && j < m && lcs[i + 1][j] === lcs[i][j + 1]) {
        pairs.push([a[i++], b[j++]]);
      } else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
        pairs.push([a[i++], null]);
      } else {
        pairs.push([null, b[j++]]);
      }
    }
    return pairs;
  }

  function renderApproval(approval) {
    const box = document.getElementById('approval');
    box.replaceChildren();
    box.hidden = !approval;
    if (!approval) {
      return;
    }
    box.appendChild(el('p', null, approval.pending
      ? 'Waiting for approval: ' + approval.calls.join(', ') + ' (expires ' + new Date(approval.expiresAt).toLocaleTimeString([], { hour12: false }) + ')'
      : approval.unreadable
        ? 'Approval ' + approval.id + ' could not be read from its store (the application log says why).'
        : 'Approval ' + approval.id + ' is no longer waiting (decided or expired).'));
    if (approval.pending && canDecide) {
      [['Approve', true, 'approve-button'], ['Deny', false, 'deny-button']].forEach(([label, approve, id]) => {
        const button = el('button', null, label);
        button.type = 'button';
        button.id = id;
        button.addEventListener('click', () => decide(approval.id, approve));
        box.appendChild(button);
      });
    } else if (approval.pending) {
      const why = el('p', 'decisions-off', DECISIONS_OFF[decisionsOff] || DECISIONS_OFF.no_resumer);
      why.id = 'decisions-off';
      box.appendChild(why);
    }
  }

  async function decide(id, approve) {
    const box = document.getElementById('approval');
    box.querySelectorAll('button').forEach((button) => { button.disabled = true; });
    try {
      const body = JSON.stringify({ approve, reason: approve ? null : 'declined in the turn console' });
      let response = null;
      for (const csrf of csrfCandidates()) {
        response = await fetch(endpoint + '/approvals/' + encodeURIComponent(id), {
          method: 'POST',
          credentials: 'same-origin',
          headers: Object.assign({ 'Content-Type': 'application/json' }, csrf),
          body
        });
        if (response.status !== 403) {
          break;
        }
      }
      const result = response.ok ? await response.json() : { outcome: 'error ' + response.status + refusal(response.status) };
      const line = el('p', 'decision', 'Decision: ' + result.outcome + (result.reply ? ' · reply: ' + result.reply : ''));
      line.id = 'decision';
      box.appendChild(line);
      await loadTurns();
    } catch (e) {
      status.textContent = e.message;
    }
  }

  function refusal(status) {
    if (status === 403) {
      return ' (refused: sign in with a role allowed to decide, and see docs/console.md, "Securing it", on CSRF)';
    }
    if (status === 405) {
      return ' (decisions are off: the mantlehooks endpoint is read-only)';
    }
    return '';
  }

  function renderTranscript(entries) {
    const list = document.getElementById('transcript');
    list.replaceChildren();
    document.getElementById('transcript-title').hidden = entries.length === 0;
    entries.forEach((entry) => {
      const item = el('li', entry.discarded ? 'discarded' : null,
        entry.role + (entry.discarded ? ' (discarded)' : '') + ': ' + (entry.text !== null ? entry.text : '[text hidden]'));
      list.appendChild(item);
    });
  }

  // Timings are placed in pixels: again whenever the waterfall's width changes, by a window
  // resize or by anything else (a scrollbar that appears when the detail grows).
  const waterfallElement = document.getElementById('waterfall');
  if (window.ResizeObserver) {
    new ResizeObserver(() => placeTimings(waterfallElement)).observe(waterfallElement);
  } else {
    window.addEventListener('resize', () => placeTimings(waterfallElement));
  }
  // the filters apply to the turns listed: nothing to fetch
  filter.addEventListener('change', renderTurns);
  agentFilter.addEventListener('change', renderTurns);
  document.getElementById('refresh').addEventListener('click', reloadTurns);
  window.addEventListener('hashchange', selectFromLink);
  loadTurns();
  selectFromLink();
  setInterval(loadTurns, 3000);
}());
