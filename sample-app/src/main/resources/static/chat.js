// The chat page: each message is one streamed turn (server-sent events from
// /api/chat/stream). The reply grows sentence by sentence as the outgoing-text hook passes
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

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) {
      return;
    }
    input.value = '';
    bubble('user', text);
    const reply = bubble('assistant', '');
    const url = 'api/chat/stream?conversationId=' + encodeURIComponent(conversationId) +
      '&message=' + encodeURIComponent(text);
    const source = new EventSource(url);
    source.addEventListener('token', (e) => {
      const token = JSON.parse(e.data);
      // retracted: a guardrail vetoed a later sentence, and this text (its reply)
      // replaces the draft shown so far
      show(reply, token.retracted ? token.text : textOf(reply) + token.text);
    });
    source.addEventListener('done', (e) => {
      source.close();
      const done = JSON.parse(e.data);
      reply.dataset.turnId = done.turnId;
      reply.dataset.outcome = done.outcome;
      note(reply, done.outcome);
      if (done.approvalId) {
        askApproval(reply, done.approvalId);
      }
    });
    source.addEventListener('failed', (e) => {
      source.close();
      show(reply, JSON.parse(e.data).text);
      reply.dataset.outcome = 'failed';
      note(reply, 'failed');
    });
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        source.close();
        show(reply, textOf(reply) || 'Sorry, the connection was lost.');
        note(reply, 'failed');
      }
    };
  });
}());
