/** The operators' queue of bank notifications that matched no deal, with the deals each could be for, and the moves on them. */
import { defineRoute } from '../../route';
import {
  attachNotificationBody,
  bankNotificationList,
  bankNotificationQuery,
  bankNotificationResponse,
  dismissNotificationBody,
  notificationIdParams,
} from '../../schemas/bank-devices';
import { attachNotification, dismissNotification, getBankNotification, listBankNotifications } from '../../services/bank-notifications';
import { operatorActor } from '../../services/deal-workflows';

const tags = ['Bank notifications'];

export const bankNotificationRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/bank-notifications',
      operationId: 'adminListBankNotifications',
      auth: 'operator',
      summary: 'Bank notifications, newest first: by default the queue (UNMATCHED and UNPARSED), each with its candidate deals',
      tags,
      query: bankNotificationQuery,
      response: bankNotificationList,
    },
    ({ query }, deps) => listBankNotifications(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/bank-notifications/{notification_id}',
      operationId: 'adminGetBankNotification',
      auth: 'operator',
      summary: 'One bank notification with its text, what was read from it and its candidate deals',
      tags,
      params: notificationIdParams,
      response: bankNotificationResponse,
      errors: [404],
    },
    ({ params }, deps) => getBankNotification(deps, params.notification_id),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/bank-notifications/{notification_id}/attach',
      operationId: 'adminAttachBankNotification',
      auth: 'operator',
      summary: "Attach a queued credit to a live PayIn: the trader's confirmation with the credit's amount, sent as you",
      description:
        'The full amount completes the deal; a partial or overpaid one leaves it PAYMENT_VERIFIED for a reconciliation, as the state ' +
        'table says. An EXPIRED or CANCELLED deal is 409: money that arrived late is settled through an appeal of the deal. A deal ' +
        'another notification confirmed is 409 (this one may be a second payment).',
      tags,
      params: notificationIdParams,
      body: attachNotificationBody,
      response: bankNotificationResponse,
      errors: [404, 409],
      audit: { action: 'bank_notification.attach', objectType: 'bank_notification', by: 'service' },
    },
    ({ params, body, actor }, deps) => attachNotification(deps, params.notification_id, body.deal_id, body.note ?? '', operatorActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/bank-notifications/{notification_id}/dismiss',
      operationId: 'adminDismissBankNotification',
      auth: 'operator',
      summary: 'Close a queued notification that needs no deal, with the reason',
      tags,
      params: notificationIdParams,
      body: dismissNotificationBody,
      response: bankNotificationResponse,
      errors: [404, 409],
      audit: { action: 'bank_notification.dismiss', objectType: 'bank_notification', by: 'service' },
    },
    ({ params, body, actor }, deps) => dismissNotification(deps, params.notification_id, body.note, operatorActor(actor)),
  ),
];
