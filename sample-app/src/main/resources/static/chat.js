// The chat page: each message is one streamed turn (server-sent events from
// POST /api/chat/stream, the message in the body). The reply grows sentence by sentence as the outgoing-text hook passes
// each one; a token marked `retracted` replaces what the reply showed (the hook vetoed a
// later sentence). A turn that waits for approval shows Approve / Deny buttons.
(function () {
  'use strict';
  const conversationId = 'web-' + Math.random().toString(36).slice(2, 10);
  const list = document.getElementById('messages');
  const form = document.getElementById('composer');
  const input = document.getElementById('message');

  // a bubble holds its text in a span of its own, so an outcome label or buttons added
  // below it are never overwritten when the text changes
  function bubble(role, text) {
    const item = document.createElement('li');
    item.className = role;
    const body = document.createElement('span');
    body.className = 'text';
    body.textContent = text;
    item.appendChild(body);
    list.appendChild(item);
    return item;
  }

  function textOf(item) {
    return item.querySelector('.text').textContent;
  }

  function show(item, text) {
    item.querySelector('.text').textContent = text;
  }

  function note(item, outcome) {
    const label = document.createElement('span');
    label.className = 'outcome';
    label.textContent = outcome;
    item.appendChild(label);
    if (outcome === 'rejected' || outcome === 'failed') {
      item.classList.add(outcome);
    }
  }

  function askApproval(item, approvalId) {
    const box = document.createElement('div');
    box.className = 'approval';
    [['Approve', true], ['Deny', false]].forEach(([label, approve]) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.addEventListener('click', () => decide(box, approvalId, approve));
      box.appendChild(button);
    });
    item.appendChild(box);
  }

  async function decide(box, approvalId, approve) {
    box.remove();
    const words = approve ? 'Yes, go ahead.' : 'No, don\'t.';
    bubble('user', words);
    const reply = bubble('assistant', '…');
    try {
      const response = await fetch('api/approvals/' + encodeURIComponent(approvalId), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ conversationId, approve, message: words, reason: approve ? null : 'declined on the chat page', channel: 'web' })
      });
      const body = await response.json();
      show(reply, response.ok ? body.reply : (body.detail || 'Sorry, something went wrong.'));
      note(reply, response.ok ? body.outcome : 'failed');
    } catch (e) {
      show(reply, 'Sorry, something went wrong.');
      note(reply, 'failed');
    }
  }

  // reads a server-sent events body as it arrives and hands each event to `on`, by name;
  // EventSource cannot send a body, and a message in a URL ends up in access logs
  async function readEvents(response, on) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return;
      }
      buffered += value.replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        let name = 'message';
        const data = [];
        block.split('\n').forEach((line) => {
          if (line.startsWith('event:')) {
            name = line.slice(6).trim();
          } else if (line.startsWith('data:')) {
            data.push(line.slice(5).replace(/^ /, ''));
          }
        });
        if (data.length && on[name]) {
          on[name](JSON.parse(data.join('\n')));
          // one event per task, as EventSource dispatches them: events that arrived
          // together are still shown one after the other
          await new Promise((resolve) => setTimeout(resolve));
        }
      }
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) {
      return;
    }
    input.value = '';
    bubble('user', text);
    const reply = bubble('assistant', '');
    let ended = false;
    const fail = (message) => {
      ended = true;
      show(reply, message);
      reply.dataset.outcome = 'failed';
      note(reply, 'failed');
    };
    try {
      const response = await fetch('api/chat/stream', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Accept': 'text/event-stream' },
        body: JSON.stringify({ conversationId, message: text })
      });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        fail(problem.detail || 'Sorry, something went wrong.');
        return;
      }
      await readEvents(response, {
        token: (token) => {
          // retracted: a guardrail vetoed a later sentence, and this text (its reply)
          // replaces the draft shown so far
          show(reply, token.retracted ? token.text : textOf(reply) + token.text);
        },
        done: (done) => {
          ended = true;
          reply.dataset.turnId = done.turnId;
          reply.dataset.outcome = done.outcome;
          note(reply, done.outcome);
          if (done.approvalId) {
            askApproval(reply, done.approvalId);
          }
        },
        failed: (failure) => fail(failure.text)
      });
      if (!ended) {
        fail(textOf(reply) || 'Sorry, the connection was lost.');
      }
    } catch (e) {
      if (!ended) {
        fail(textOf(reply) || 'Sorry, the connection was lost.');
      }
    }
  });
}());
