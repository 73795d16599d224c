/** The console's notifications of new work (the badge and its list). */
import { defineRoute } from '../../route';
import { notificationsQuery, notificationsResponse } from '../../schemas/notifications';
import { listNotifications } from '../../services/notifications';

export const notificationRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/notifications',
      operationId: 'adminListNotifications',
      auth: 'operator',
      summary: 'New work for operators, newest first: appeals opened or reopened, withdrawals waiting for approval, alerts raised',
      description:
        'Live merchants only (a sandbox merchant’s work is play money). The console polls it with `after=<latest_id>` and shows ' +
        'what is newer than what the operator has seen. The same events go to the desk hook (DESK_HOOK_URL) when one is set.',
      tags: ['Operator: console'],
      query: notificationsQuery,
      response: notificationsResponse,
    },
    ({ query }, deps) => listNotifications(deps, query),
  ),
];
