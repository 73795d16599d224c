/** Operator alerts: what needs a look (e.g. a payout PROCESSING for too long); acknowledge and resolve. */
import { defineRoute } from '../../route';
import { alertParams, alertResponse, alertsQuery, alertsResponse, bulkResolveAlertsBody, bulkResolveAlertsResponse } from '../../schemas/alerts';
import { eachOf } from '../../services/bulk';
import { acknowledgeAlertByOperator, listAlerts, resolveAlertOperator } from '../../services/alerts';
import { operatorActor } from '../../services/deal-workflows';

const tags = ['Operator'];

export const alertRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/alerts',
      operationId: 'adminListAlerts',
      auth: 'operator',
      summary: 'Open operator alerts, newest first (e.g. a payout PROCESSING past PAYOUT_PROCESSING_ALERT_SECONDS) — addition',
      description:
        'An alert closes by itself when its deal or subject moves on (a payout completed or rejected); an operator may ' +
        'acknowledge and resolve one. `include_resolved=true` lists resolved ones too. Keyset pages (page_size default and ' +
        'maximum 500; page_token from next_page_token, valid with the same include_resolved).',
      tags,
      query: alertsQuery,
      response: alertsResponse,
    },
    ({ query }, deps) => listAlerts(deps, { includeResolved: query.include_resolved === 'true', page_size: query.page_size, page_token: query.page_token }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/alerts/{alert_id}/acknowledge',
      operationId: 'adminAcknowledgeAlert',
      auth: 'operator',
      summary: 'Acknowledge an open alert: an operator is on it (who and when are kept; it stays open)',
      description: 'Idempotent: an alert acknowledged or resolved already is answered as it is, and nothing is changed or audited again.',
      tags,
      params: alertParams,
      response: alertResponse,
      errors: [404],
      audit: { action: 'alert.acknowledge', objectType: 'alert', by: 'service' },
    },
    ({ params, actor }, deps) => acknowledgeAlertByOperator(deps, params.alert_id, operatorActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/alerts/{alert_id}/resolve',
      operationId: 'adminResolveAlert',
      auth: 'operator',
      summary: 'Resolve an alert by hand (who and when are kept)',
      description:
        'Idempotent: an alert resolved already (by an operator or by the gateway) is answered as it is. A condition that ' +
        'persists may raise a new alert of the same kind and subject.',
      tags,
      params: alertParams,
      response: alertResponse,
      errors: [404],
      audit: { action: 'alert.resolve', objectType: 'alert', by: 'service' },
    },
    ({ params, actor }, deps) => resolveAlertOperator(deps, params.alert_id, operatorActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/alerts/bulk-resolve',
      operationId: 'adminBulkResolveAlerts',
      auth: 'operator',
      summary: 'Resolve several alerts by hand: the resolve action once per alert, each audited (alert.resolve)',
      description:
        'Each id goes through exactly what POST /alerts/{id}/resolve does (one resolved already is answered as it is, nothing written ' +
        'again; an unknown id is 404 in its result). One result per id (at most 100); the request is 200.',
      tags,
      body: bulkResolveAlertsBody,
      response: bulkResolveAlertsResponse,
      audit: { action: 'alert.resolve', objectType: 'alert', by: 'service' },
    },
    async ({ body, actor }, deps) => ({
      results: await eachOf(deps.log, body.alert_ids, async (id) => {
        await resolveAlertOperator(deps, id, operatorActor(actor));
        return { status: 200, outcome: 'resolved' as const };
      }),
    }),
  ),
];
