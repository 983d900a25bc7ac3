; ModuleID = '__compute_module___compute_module_wrapped_convert'
source_filename = "__compute_module___compute_module_wrapped_convert"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind
define noalias noundef ptr @wrapped_convert(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !3
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %.lr.ph.preheader

.lr.ph.preheader:                                 ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 13
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 8192)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 16384)
  %14 = or disjoint i64 %12, 8190
  br label %.lr.ph

.lr.ph:                                           ; preds = %.lr.ph, %.lr.ph.preheader
  %15 = phi i64 [ %13, %.lr.ph.preheader ], [ %46, %.lr.ph ]
  %savedstack = tail call ptr @llvm.stacksave.p0()
  %.idx3 = shl nuw nsw i64 %15, 6
  %16 = getelementptr i8, ptr %4, i64 %.idx3
  %.sroa.0.0.copyload = load <8 x i16>, ptr %16, align 1
  %.sroa.4.0..sroa_idx = getelementptr inbounds nuw i8, ptr %16, i64 16
  %.sroa.4.0.copyload = load <8 x i16>, ptr %.sroa.4.0..sroa_idx, align 1
  %.sroa.5.0..sroa_idx = getelementptr inbounds nuw i8, ptr %16, i64 32
  %.sroa.5.0.copyload = load <8 x i16>, ptr %.sroa.5.0..sroa_idx, align 1
  %.sroa.6.0..sroa_idx = getelementptr inbounds nuw i8, ptr %16, i64 48
  %.sroa.6.0.copyload = load <8 x i16>, ptr %.sroa.6.0..sroa_idx, align 1
  %17 = alloca [32 x float], align 64
  %18 = zext <8 x i16> %.sroa.0.0.copyload to <8 x i32>
  %19 = shl nuw <8 x i32> %18, splat (i32 16)
  store <8 x i32> %19, ptr %17, align 64
  %20 = zext <8 x i16> %.sroa.4.0.copyload to <8 x i32>
  %21 = shl nuw <8 x i32> %20, splat (i32 16)
  %22 = getelementptr inbounds nuw i8, ptr %17, i64 32
  store <8 x i32> %21, ptr %22, align 32
  %23 = zext <8 x i16> %.sroa.5.0.copyload to <8 x i32>
  %24 = shl nuw <8 x i32> %23, splat (i32 16)
  %25 = getelementptr inbounds nuw i8, ptr %17, i64 64
  store <8 x i32> %24, ptr %25, align 64
  %26 = zext <8 x i16> %.sroa.6.0.copyload to <8 x i32>
  %27 = shl nuw <8 x i32> %26, splat (i32 16)
  %28 = getelementptr inbounds nuw i8, ptr %17, i64 96
  store <8 x i32> %27, ptr %28, align 32
  %.idx7 = shl nuw nsw i64 %15, 7
  %29 = getelementptr i8, ptr %6, i64 %.idx7
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(128) %29, ptr noundef nonnull align 64 dereferenceable(128) %17, i64 128, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %savedstack.1 = tail call ptr @llvm.stacksave.p0()
  %.idx3.1 = shl nuw nsw i64 %15, 6
  %30 = getelementptr i8, ptr %4, i64 %.idx3.1
  %31 = getelementptr i8, ptr %30, i64 64
  %.sroa.0.0.copyload.1 = load <8 x i16>, ptr %31, align 1
  %.sroa.4.0..sroa_idx.1 = getelementptr i8, ptr %30, i64 80
  %.sroa.4.0.copyload.1 = load <8 x i16>, ptr %.sroa.4.0..sroa_idx.1, align 1
  %.sroa.5.0..sroa_idx.1 = getelementptr i8, ptr %30, i64 96
  %.sroa.5.0.copyload.1 = load <8 x i16>, ptr %.sroa.5.0..sroa_idx.1, align 1
  %.sroa.6.0..sroa_idx.1 = getelementptr i8, ptr %30, i64 112
  %.sroa.6.0.copyload.1 = load <8 x i16>, ptr %.sroa.6.0..sroa_idx.1, align 1
  %32 = alloca [32 x float], align 64
  %33 = zext <8 x i16> %.sroa.0.0.copyload.1 to <8 x i32>
  %34 = shl nuw <8 x i32> %33, splat (i32 16)
  store <8 x i32> %34, ptr %32, align 64
  %35 = zext <8 x i16> %.sroa.4.0.copyload.1 to <8 x i32>
  %36 = shl nuw <8 x i32> %35, splat (i32 16)
  %37 = getelementptr inbounds nuw i8, ptr %32, i64 32
  store <8 x i32> %36, ptr %37, align 32
  %38 = zext <8 x i16> %.sroa.5.0.copyload.1 to <8 x i32>
  %39 = shl nuw <8 x i32> %38, splat (i32 16)
  %40 = getelementptr inbounds nuw i8, ptr %32, i64 64
  store <8 x i32> %39, ptr %40, align 64
  %41 = zext <8 x i16> %.sroa.6.0.copyload.1 to <8 x i32>
  %42 = shl nuw <8 x i32> %41, splat (i32 16)
  %43 = getelementptr inbounds nuw i8, ptr %32, i64 96
  store <8 x i32> %42, ptr %43, align 32
  %.idx7.1 = shl nuw nsw i64 %15, 7
  %44 = getelementptr i8, ptr %6, i64 %.idx7.1
  %45 = getelementptr i8, ptr %44, i64 128
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(128) %45, ptr noundef nonnull align 64 dereferenceable(128) %32, i64 128, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack.1)
  %46 = add nuw nsw i64 %15, 2
  %exitcond.not.1 = icmp eq i64 %15, %14
  br i1 %exitcond.not.1, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #3

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #4

attributes #0 = { nofree norecurse nosync nounwind }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #3 = { mustprogress nocallback nofree nosync nounwind willreturn }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 4}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
