import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes, registered by the setup (temporal server start-dev
 * --search-attribute ...) and kept current by the deal workflows, so an operator finds any
 * deal's workflow in the Temporal UI by merchant or deal id.
 */
export const MerchantIdKey = defineSearchAttributeKey('MerchantId', 'KEYWORD');
export const DealIdKey = defineSearchAttributeKey('DealId', 'KEYWORD');
export const DealTypeKey = defineSearchAttributeKey('DealType', 'KEYWORD');
export const DealStatusKey = defineSearchAttributeKey('DealStatus', 'KEYWORD');
/** Settlement deals: the expired parent and the appeal they settle; appeal workflows carry AppealId. */
export const ParentDealIdKey = defineSearchAttributeKey('ParentDealId', 'KEYWORD');
export const OriginAppealIdKey = defineSearchAttributeKey('OriginAppealId', 'KEYWORD');
export const AppealIdKey = defineSearchAttributeKey('AppealId', 'KEYWORD');

export const SEARCH_ATTRIBUTES: Record<string, 'Keyword'> = {
  MerchantId: 'Keyword',
  DealId: 'Keyword',
  DealType: 'Keyword',
  DealStatus: 'Keyword',
  ParentDealId: 'Keyword',
  OriginAppealId: 'Keyword',
  AppealId: 'Keyword',
};
