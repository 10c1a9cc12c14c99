export { paymentMigrations, paymentModule } from './module.ts';
export { paymentClientOverHttp, type PaymentClient } from './client.ts';
export { createPaymentService, type PaymentService, type PaymentServiceDeps, type Payments, type PlanUpdate } from './service.ts';
export { GRACE_DAYS_DEFAULT, RETRY_DAYS } from './billing.ts';
export type { AdminPlan, Money, Order, PayResult, Plan, Subscription } from './views.ts';
export type { Credit, OrderCredit, OrderReversal, Restoral, Reversal, Standing, UnlockLedger, VipState } from './ports.ts';
