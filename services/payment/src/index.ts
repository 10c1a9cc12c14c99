export { paymentMigrations, paymentModule } from './module.ts';
export { paymentClientOverHttp, type PaymentClient } from './client.ts';
export { createPaymentService, type PaymentService, type PaymentServiceDeps, type Payments, type PlanUpdate } from './service.ts';
export { RETRY_DAYS } from './subscriptions.ts';
export type { AdminPlan, Money, Order, PayResult, Plan, Subscription } from './views.ts';
export type { Credit, OrderCredit, Refund, Standing, UnlockLedger, VipState } from './ports.ts';
